/**
 * `send(input, { key })`: a key the conversation already holds starts
 * nothing and answers as its turn does (its answer, or `Waiting`), so a
 * retry after a store error never starts a second turn.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, isFunctaiError, memoryStore, tool, Waiting } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
const desk = ai("desk", { description: "A desk.", input: { text: z.string() }, tools: [pay] });
const turnRecords = async (store: { read(id: string): Promise<readonly object[]> }, id: string) =>
  (await store.read(id)).filter((r) => (r as { kind: string }).kind === "turn");

describe("send with a key", () => {
  it("the same key twice: one turn, the same answer, the model asked once", async () => {
    const store = memoryStore();
    const lm = scripted(["Hello sam."]);
    const chat = desk.conversation("keyed", { store, lm });
    const first = await chat.send("hi", { key: "req-1" });
    const second = await chat.send("hi", { key: "req-1" });
    expect(first).toBe("Hello sam.");
    expect(second).toBe(first);
    expect(lm.requests).toHaveLength(1);
    expect(await turnRecords(store, "keyed")).toHaveLength(1);
    expect((await chat.turns()).map((t) => t.state)).toEqual(["done"]);
  });

  it("the key of a waiting turn: Waiting again, nothing new starts", async () => {
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 3 } }] }, "Paid."]);
    const chat = desk.conversation("keyed-wait", { store, lm, approve: "changes" });
    const a = await chat.send("pay 3", { key: "pay-3" }).catch((e: unknown) => e);
    const b = await chat.send("pay 3", { key: "pay-3" }).catch((e: unknown) => e);
    expect(a).toBeInstanceOf(Waiting);
    expect(b).toBeInstanceOf(Waiting);
    expect((b as Waiting).turn.id).toBe((a as Waiting).turn.id);
    expect(lm.requests).toHaveLength(1);
    expect(await turnRecords(store, "keyed-wait")).toHaveLength(1);
    // answered, the key then gives the turn's answer
    expect(await (a as Waiting).turn.approve({ by: "sam" })).toBe("Paid.");
    expect(await chat.send("pay 3", { key: "pay-3" })).toBe("Paid.");
    expect(lm.requests).toHaveLength(2);
  });

  it("a retry after a store error that wrote the turn does not start a second turn", async () => {
    const inner = memoryStore();
    const store = faultyStore(inner, { failOn: { 1: "after-write" } }); // the first records are written, the caller is told it failed
    const lm = scripted(["Done once."]);
    const chat = desk.conversation("keyed-retry", { store, lm, lease: { renewMs: 20, ttlMs: 60 } });
    const failed = await chat.send("go", { key: "go-1" }).catch((e: unknown) => e);
    expect(isFunctaiError(failed)).toBe(true);
    expect(await turnRecords(inner, "keyed-retry")).toHaveLength(1);
    expect(await chat.send("go", { key: "go-1" })).toBe("Done once.");
    expect(await turnRecords(inner, "keyed-retry")).toHaveLength(1);
    expect(lm.requests).toHaveLength(1);
  });

  it("the key of a failed turn: the same error again (its code and message), nothing new starts", async () => {
    const store = memoryStore();
    const counting = ai("count", { description: "Count.", input: { text: z.string() }, output: z.number() });
    const lm = scripted(["many", "a lot"]); // read twice, then refused: output-invalid
    const chat = counting.conversation("keyed-failed", { store, lm });
    const first = await chat.send("how many?", { key: "count-1" }).catch((e: unknown) => e);
    expect(first).toMatchObject({ code: "output-invalid" });
    const again = await chat.send("how many?", { key: "count-1" }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: "output-invalid", message: (first as Error).message });
    expect(isFunctaiError(again)).toBe(true);
    expect(lm.requests).toHaveLength(2);
    expect(await turnRecords(store, "keyed-failed")).toHaveLength(1);
  });

  it.each(["", "k".repeat(201), 7])("refuses the key %j with input-invalid", async (key) => {
    const chat = desk.conversation("keyed-bad", { store: memoryStore(), lm: scripted(["x"]) });
    await expect(chat.send("hi", { key: key as string })).rejects.toMatchObject({ code: "input-invalid" });
  });
});
