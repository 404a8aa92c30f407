/**
 * Hunt 28: a `tools/call` answer with no `content` (and no structured
 * content): `{}`, or the `toolResult` of MCP's first protocol version, sent
 * by a server that says it speaks a later one. MCP requires `content` in a
 * tool's result; the SDK's client fills a missing one in with `[]`, so the
 * model was shown `[]`, as if the tool had said nothing: the server's
 * `toolResult` was lost, and a changing tool ("refunded 39.00") read as done
 * with nothing to say. It is an answer that cannot be read (README: "not an
 * MCP result"): a changing tool may have acted, and the turn stops for a
 * person (`turn-unfinished`); a reading tool's is a tool error the model
 * sees (`remote-protocol`). An answer with `content: []` is MCP's, and is
 * shown as before. (The SDK's own server fills a missing `content` in: the
 * answer is spoiled on its way out, as a server of another make sends it.)
 * An error answer that says nothing (no content, or only an empty text) is
 * the server's word that the tool failed: the model was shown "Error:
 * FunctaiError" for an empty text; it is told "the tool reported an error".
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, isFunctaiError, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const TOOLS: Tool[] = [
  { name: "refund", description: "Refund an order.", inputSchema: { type: "object" } },
  { name: "find_order", description: "Find an order.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
];

/** The server's answers leave as `answer`, after its own checks of them (the SDK's server fills in a missing content). */
async function desk(answer: unknown) {
  const world = await hunt13Server([TOOLS], () => ({ content: [{ type: "text", text: "SPOIL" }] }));
  const transport = world.server.transport!;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const result = (message as { result?: CallToolResult }).result;
    const spoil = result?.content?.[0]?.type === "text" && result.content[0].text === "SPOIL";
    return send(spoil ? ({ ...message, result: answer } as typeof message) : message, options);
  };
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(world.client) });
  return { ...world, fn };
}

describe.each([
  ["the first protocol version's toolResult", { toolResult: "refunded 39.00" }],
  ["nothing at all", {}],
])("an answer with no content: %s", (_what, answer) => {
  it("of a changing tool stops the turn for a person (turn-unfinished), never shown to the model as []", async () => {
    const { fn, calls } = await desk(answer);
    const lm = deskModel({ name: "refund", input: {} });
    const store = memoryStore();
    const chat = fn.conversation("c", { store, lm });
    const e = await chat.send("Refund it.").catch((x: unknown) => x);
    expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/refund may have run: the MCP server's answer could not be read \(.*no content/);
    expect(lm.requests).toHaveLength(1);
    const [turn] = await chat.turns();
    expect(turn!.unfinished.map((t) => t.name)).toEqual(["refund"]);
    expect(calls.map((c) => c.name)).toEqual(["refund"]);
  });

  it("of a reading tool is a tool error the model sees (remote-protocol)", async () => {
    const { fn } = await desk(answer);
    const lm = deskModel({ name: "find_order", input: {} });
    const reply = await fn("Find it.", { lm });
    expect(reply).toMatch(/^failed: Error: the MCP server's answer to find_order could not be read: .*no content/);
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "find_order", isError: true });
  });
});

describe("an error answer with no content", () => {
  it("is the server's word that the tool failed: a tool error the model sees", async () => {
    const { fn } = await desk({ isError: true });
    const lm = deskModel({ name: "refund", input: {} });
    const reply = await fn("Refund it.", { lm, approve: () => true });
    expect(reply).toBe("failed: Error: the tool reported an error");
  });

  it("nor one whose only text is empty: the model is told the tool failed, not shown an empty error", async () => {
    const { fn } = await desk({ content: [{ type: "text", text: "" }], isError: true });
    const lm = deskModel({ name: "refund", input: {} });
    const reply = await fn("Refund it.", { lm, approve: () => true });
    expect(reply).toBe("failed: Error: the tool reported an error");
  });
});

describe("an answer with content: []", () => {
  it("is MCP's, and shown as it is", async () => {
    const { fn } = await desk({ content: [] });
    const lm = deskModel({ name: "refund", input: {} });
    const reply = await fn("Refund it.", { lm, approve: () => true });
    expect(reply).toBe("ok: []");
  });
});
