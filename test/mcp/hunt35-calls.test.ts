/**
 * Hunt 35: a real server over stdio, in a process of its own, at the edges
 * a serious user meets: pages that go round (the same cursor forever, or a
 * server that ignores the cursor), a turn stopped mid-call, a server that
 * exits mid-call, a tool list that changes under a turn
 * (`notifications/tools/list_changed`), and two sources of one tool name.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError, ai, memoryStore, tool } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

async function server(pages: Record<string, unknown>, after?: Record<string, unknown>) {
  const s = await hunt35(pages, after);
  return kept(s);
}

const lists = (logged: Record<string, unknown>[]) => logged.filter((l) => "list" in l).map((l) => l.list);

describe("pages that go round", () => {
  it("a server that gives the same cursor forever is refused (remote-protocol) at its second page, naming the cursor", async () => {
    const { client, logged } = await server({
      "": { tools: [toolNamed("lookup")], nextCursor: "again" },
      again: { tools: [toolNamed("refund", true)], nextCursor: "again" },
    });
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringContaining('"again"') });
    expect(lists(logged())).toEqual(["", "again"]);
  }, 30_000);

  it("a server that ignores the cursor (its first page again) is refused too, not listed forever", async () => {
    const { client, logged } = await server({ "": { tools: [toolNamed("lookup")], nextCursor: "p2" } });
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringContaining('"p2"') });
    expect(lists(logged())).toEqual(["", "p2"]);
  }, 30_000);
});

describe("a call cut short", () => {
  const tools = { "": { tools: [toolNamed("hang"), toolNamed("die", true), toolNamed("lookup")] } };

  it("a stopped turn (signal) cancels the remote call: the server is sent notifications/cancelled", async () => {
    const { client, logged } = await server(tools);
    const desk = await makeDesk(client);
    const controller = new AbortController();
    const call = desk("Hang on.", { lm: deskModel({ name: "hang", input: {} }), signal: controller.signal });
    await expect.poll(() => logged(), { timeout: 10_000 }).toContainEqual({ tool: "hang", phase: "begin" });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    await expect.poll(() => logged(), { timeout: 10_000 }).toContainEqual({ tool: "hang", phase: "cancelled" });
  }, 30_000);

  it("a server that exits inside a changing call stops the turn for a person (turn-unfinished); the model is asked once", async () => {
    const { client, logged } = await server(tools);
    const desk = await makeDesk(client);
    const lm = deskModel({ name: "die", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    await expect(chat.send("Go.")).rejects.toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/die may have run/) });
    expect(lm.requests).toHaveLength(1);
    expect(logged()).toContainEqual({ tool: "die", phase: "begin" });
    // the dead connection is said plainly after: a new listing is remote-closed
    await expect(mcpTools(client)).rejects.toMatchObject({ code: "remote-closed" });
  }, 30_000);
});

describe("a tool list that changes (notifications/tools/list_changed)", () => {
  it("a tool the server no longer lists, called, is a tool error the model sees with the server's words; it never ran", async () => {
    const { client, logged } = await server(
      { "": { tools: [toolNamed("swap", true), toolNamed("refund", true)] } },
      { "": { tools: [toolNamed("swap", true), toolNamed("refund_v2", true)] } },
    );
    const tools = await mcpTools(client);
    const ctx = { signal: new AbortController().signal, idempotencyKey: "k1" } as never;
    const swap = tools.find((t) => t.name === "swap")!;
    const refund = tools.find((t) => t.name === "refund")!;
    expect(await swap.runAsTool({}, ctx)).toBe("ran swap {}");
    const e = await refund.runAsTool({}, ctx).catch((x: unknown) => x);
    // not a call in doubt (turn-unfinished): the server no longer lists it, so it is not sent (hunt 65)
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toMatchObject({ code: "turn-unfinished" });
    expect((e as Error).message).toMatch(/no longer lists refund/);
    expect(logged().filter((l) => l.tool === "refund")).toEqual([]);
    // listed again, the server's new tools are had
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(["swap", "refund_v2"]);
  }, 30_000);
});

describe("one tool name from two sources", () => {
  it("two servers' tools of one name, or a server's and a local tool's, are refused when put together (settings-invalid, naming it)", async () => {
    const a = await server({ "": { tools: [toolNamed("lookup"), toolNamed("refund", true)] } });
    const b = await server({ "": { tools: [toolNamed("lookup")] } });
    const [fromA, fromB] = await Promise.all([mcpTools(a.client), mcpTools(b.client)]);
    const local = tool("lookup", { description: "Look up.", input: { id: z.string() }, effects: "reads" }, async () => "local");
    for (const tools of [
      [...fromA!, ...fromB!],
      [...fromA!, local],
    ])
      expect(() => ai("desk", { description: "Help.", input: { message: z.string() }, tools })).toThrow(
        expect.objectContaining({ code: "settings-invalid", message: expect.stringMatching(/lookup/) }),
      );
    // include leaves one of them out, and the rest go together
    const fromBOnly = await mcpTools(a.client, { include: ["refund"] });
    expect(() => ai("desk", { description: "Help.", input: { message: z.string() }, tools: [...fromBOnly, ...fromB!] })).not.toThrow();
  }, 30_000);
});
