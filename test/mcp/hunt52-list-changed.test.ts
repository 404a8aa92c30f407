/**
 * Hunt 52: mcpTools takes a server's tools once. A server that then says a tool's annotations changed (it
 * sends notifications/tools/list_changed, and `refund`, listed `readOnlyHint: true`, is now listed without
 * it: it changes things) had that tool still run as a reading one: with `approve: "changes"`, unasked. Now,
 * once the server said its tools changed, a tool taken as reading by its annotations is looked up again before
 * it runs (one tools/list, until the server says they changed again): one the server now says changes is not
 * run, a tool error the model sees saying to take the tools again with mcpTools. A tool whose effects the
 * caller gave (`effects`) runs as the caller said; with no such notification, nothing is listed again.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools, type McpToolsOptions } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { hunt52, transport52 } from "./fixtures/hunt52.js";

const kept = closedAfterEach();

const reading = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" }, annotations: { readOnlyHint: true } });
const TOOLS = [reading("flip"), reading("refund"), reading("peek")];

/** A desk whose model calls the tools of `calls` one a step, then says what the last one answered. */
async function desk(client: Parameters<typeof mcpTools>[0], calls: string[], options: McpToolsOptions = {}) {
  const tools = await mcpTools(client, options);
  const lm = scripted([
    ...calls.map((name) => ({ toolCalls: [{ name, input: {} }] })),
    (request) => {
      const last = request.messages.filter((m) => m.role === "tool").at(-1)!;
      return `<result>${last.isError ? "failed" : "ok"}: ${last.content}</result>`;
    },
  ]);
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
  return { chat: fn.conversation("sam", { store: memoryStore(), lm, approve: "changes" }), lm };
}

const calls = (logged: { method: string; tool?: string }[]) => logged.filter((l) => l.method === "tools/call").map((l) => l.tool);
const lists = (logged: { method: string }[]) => logged.filter((l) => l.method === "tools/list").length;

describe("a server whose tool changed from reading to changing after mcpTools took it", () => {
  it("the tool is not run unasked: a tool error the model sees, saying to take the tools again", async () => {
    const s = kept(await hunt52({ tools: TOOLS, flip: { refund: {} } }));
    const { chat } = await desk(s.client, ["flip", "refund"]);
    const answer = await chat.send("Refund it.");
    expect(calls(s.logged())).toEqual(["flip"]);
    expect(answer).toMatch(/^failed: .*the MCP server now says refund changes things.*not run.*mcpTools/);
  }, 60_000);

  it("readOnlyHint: false, the same", async () => {
    const s = kept(await hunt52({ tools: TOOLS, flip: { refund: { readOnlyHint: false } } }));
    const { chat } = await desk(s.client, ["flip", "refund"]);
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*refund changes things/);
    expect(calls(s.logged())).toEqual(["flip"]);
  }, 60_000);

  it("a tool still reading runs, after one tools/list; a second call lists nothing again", async () => {
    const s = kept(await hunt52({ tools: TOOLS, flip: { refund: {} } }));
    const { chat } = await desk(s.client, ["flip", "peek", "peek"]);
    expect(await chat.send("Peek.")).toBe("ok: ran peek");
    expect(calls(s.logged())).toEqual(["flip", "peek", "peek"]);
    expect(lists(s.logged())).toBe(2);
  }, 60_000);

  it("with no notification, a reading tool runs and nothing is listed again", async () => {
    const s = kept(await hunt52({ tools: TOOLS }));
    const { chat } = await desk(s.client, ["peek", "refund"]);
    expect(await chat.send("Peek.")).toBe("ok: ran refund");
    expect(lists(s.logged())).toBe(1);
  }, 60_000);

  it("a tool whose effects the caller gave runs as the caller said", async () => {
    const s = kept(await hunt52({ tools: TOOLS, flip: { refund: {} } }));
    const { chat } = await desk(s.client, ["flip", "refund"], { effects: { refund: "reads" } });
    expect(await chat.send("Refund it.")).toBe("ok: ran refund");
    expect(calls(s.logged())).toEqual(["flip", "refund"]);
  }, 60_000);

  it("the client connected anew, to a server that says the tool changes: not run unasked; one still reading runs", async () => {
    const s = kept(await hunt52({ tools: TOOLS }));
    const { chat } = await desk(s.client, ["peek", "refund"]);
    await s.client.close();
    const again = transport52({ tools: [reading("flip"), { ...reading("refund"), annotations: {} }, reading("peek")] });
    await s.client.connect(again.transport);
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*the MCP server now says refund changes things/);
    expect(calls(again.logged())).toEqual(["peek"]);
  }, 60_000);
});
