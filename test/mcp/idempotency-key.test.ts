/**
 * An MCP tool's call carries functai's `ctx.idempotencyKey` to the server,
 * in the request's `_meta` under `functai.dev/idempotencyKey`: each call
 * its own key, and a person's rerun of a call that may have run the same key
 * as its first run, so a deduplicating server performs it once. (The real
 * orders server notes the `_meta` its handler is given.)
 */
import { describe, expect, it } from "vitest";
import type { McpTool } from "../../adapters/mcp/index.js";
import { memoryStore, type ToolLike } from "../../src/index.js";
import { deskModel, linkedClient, makeDesk } from "./fixtures/desk.js";
import type { OrdersOptions } from "./fixtures/orders.js";

const KEY = "functai.dev/idempotencyKey";

/** What the server's handlers were sent: `[tool, key]` per call, and each call's whole `_meta`. */
function serverNotes() {
  const keys: [string, unknown][] = [];
  const metas: (Record<string, unknown> | undefined)[] = [];
  const onMeta: OrdersOptions["onMeta"] = (tool, meta) => {
    keys.push([tool, meta?.[KEY]]);
    metas.push(meta);
  };
  return { keys, metas, onMeta };
}

/** A spy on the desk's tools: `[tool, ctx.idempotencyKey]` for each call functai runs, before it reaches the server. */
function givenKeys() {
  const given: [string, string][] = [];
  const wrap = (tool: McpTool): ToolLike => ({
    ...tool,
    runAsTool: (input, ctx) => {
      given.push([tool.name, ctx.idempotencyKey]);
      return tool.runAsTool(input, ctx);
    },
  });
  return { given, wrap };
}

/** The desk's model, asking for the refund of HANG first. */
const refundFirst = () => deskModel({ name: "refund", input: { order_id: "HANG", amount: 39 } });

describe("an MCP tool call's idempotency key", () => {
  it("is sent in _meta as functai.dev/idempotencyKey: the ctx.idempotencyKey functai gives that call, each call its own", async () => {
    const server = serverNotes();
    const { given, wrap } = givenKeys();
    const { client } = await linkedClient({ record: () => undefined, onMeta: server.onMeta });
    const desk = await makeDesk(client, {}, wrap);
    expect(await desk("Order A-1042 never arrived.", { lm: deskModel(), approve: () => true })).toBe("refunded 39.00 for A-1042");
    expect(given.map(([tool]) => tool)).toEqual(["lookup_order", "refund"]);
    expect(server.keys).toEqual(given); // the server got, call by call, the key functai gave it
    expect(server.metas).toEqual(given.map(([, key]) => ({ [KEY]: key }))); // and nothing else in _meta
    const [[, lookup], [, refund]] = given as [[string, string], [string, string]];
    expect(lookup).toMatch(/\S/);
    expect(refund).not.toBe(lookup);
    // another call of the same tool with the same input, in another turn: another key
    await desk("Order A-1042 never arrived.", { lm: deskModel(), approve: () => true });
    expect(new Set(server.keys.map(([, key]) => key)).size).toBe(4);
  });

  it("a person's rerun of a call that may have run sends the same key again; a later call sends another", async () => {
    const ledger: string[] = [];
    const server = serverNotes();
    const { given, wrap } = givenKeys();
    // the server goes away while the refund runs: the turn stops for a person, the refund unfinished
    let hung = () => {};
    const hang = new Promise<void>((r) => (hung = r));
    const first = await linkedClient({ record: (line) => ledger.push(line), onHang: () => hung(), onMeta: server.onMeta });
    void hang.then(() => first.serverSide.close());
    const store = memoryStore();
    const desk = await makeDesk(first.client, {}, wrap);
    await expect(desk.conversation("sam", { store, lm: refundFirst() }).send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(ledger).toEqual(["refund HANG 39.00"]);
    const [[, key]] = given as [[string, string]];
    expect(server.keys).toEqual([["refund", key]]);

    // a person says it did not run: rerun, over a new connection to the server (which answers it now)
    const second = await linkedClient({ record: (line) => ledger.push(line), onMeta: server.onMeta, hang: false });
    const again = await makeDesk(second.client, {}, wrap);
    const [turn] = await again.conversation("sam", { store, lm: refundFirst() }).turns();
    const [unfinished] = turn!.unfinished;
    expect(await turn!.resume({ rerun: [unfinished!.invocation] })).toBe("ok: refunded 39.00 for HANG");
    expect(ledger).toEqual(["refund HANG 39.00", "refund HANG 39.00"]); // sent twice, as the person asked: a deduplicating server acts once
    expect(server.keys).toEqual([
      ["refund", key],
      ["refund", key],
    ]);
    expect(given).toEqual([
      ["refund", key],
      ["refund", key],
    ]);

    // the same refund asked for again in the next turn is another call: another key
    expect(await again.conversation("sam", { store, lm: refundFirst() }).send("Refund HANG again, please.")).toBe("ok: refunded 39.00 for HANG");
    expect(server.keys).toHaveLength(3);
    expect(server.keys[2]).toEqual(given[2]);
    expect(server.keys[2]![1]).not.toBe(key);
  });
});
