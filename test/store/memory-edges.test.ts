/**
 * The memory store at the edges of its input: how it refuses a batch, an
 * `expect` or an `after` that are not what the contract takes; and a turn
 * kept in it shows the model a tool's output as it was (the engine keeps a
 * tool's output as its JSON, never the tool's own objects).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { scripted } from "../../src/testing/index.js";
import { codeOf, get, rec } from "./contract.js";

describe("memory store: what it keeps", () => {
  it("keeps a record's own __proto__ key as a key, not as its prototype", async () => {
    const store = memoryStore();
    const record = JSON.parse('{"functai_conversation":1,"kind":"x","at":"t","__proto__":{"polluted":true}}') as object;
    await store.append("c", [record]);
    const [got] = await store.read("c");
    expect(Object.hasOwn(got!, "__proto__")).toBe(true);
    expect((got as { polluted?: unknown }).polluted).toBeUndefined();
    expect(got!.seq).toBe(1);
  });
});

describe("memory store: refusals are FunctaiErrors", () => {
  it("a batch that is not an array of objects is input-invalid", async () => {
    const store = memoryStore();
    expect(await codeOf(() => store.append("c", [null as never]))).toBe("input-invalid");
    expect(await codeOf(() => store.append("c", [[] as never]))).toBe("input-invalid");
    expect(await codeOf(() => store.append("c", rec() as never))).toBe("input-invalid");
    expect(await store.read("c")).toEqual([]);
  });

  it("an expect that is not a length is input-invalid, not a store-conflict that no retry can win", async () => {
    const store = memoryStore();
    await store.append("c", [rec(), rec()]);
    for (const expectBad of [Number.NaN, -1, 1.5, "2", null, Number.POSITIVE_INFINITY]) {
      expect(await codeOf(() => store.append("c", [rec()], { expect: expectBad as never })), String(expectBad)).toBe("input-invalid");
    }
    expect(await store.append("c", [rec()], { expect: 2 })).toBe(3);
  });

  it("an after that is not a number is input-invalid (read would give every record, wait would never see them)", async () => {
    const store = memoryStore();
    await store.append("c", [rec(), rec()]);
    for (const afterBad of [Number.NaN, "1", null]) {
      expect(await codeOf(() => store.read("c", afterBad as never)), String(afterBad)).toBe("input-invalid");
      expect(await codeOf(() => store.wait!("c", afterBad as never, 10)), String(afterBad)).toBe("input-invalid");
    }
    // What the contract takes still reads as before.
    expect((await store.read("c", -3)).map((r) => r.seq)).toEqual([1, 2]);
    expect((await store.read("c", 1)).map((r) => r.seq)).toEqual([2]);
    expect(await store.read("c", Number.POSITIVE_INFINITY)).toEqual([]);
    expect(await store.wait!("c", 1, 10)).toBe(true);
  });
});

describe("a turn resumed from a memory store", () => {
  it("shows the model a tool's output as it was, though the tool's object changed since (the journal is not edited)", async () => {
    const ORDERS: Record<string, { status: string }> = { "A-1": { status: "lost by the carrier" } };
    const lookup = tool("lookup_order", { description: "An order.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => ORDERS[order_id]);
    const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, () => "refunded");
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [lookup, refund] });
    const lm = scripted([
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
    ]);
    const store = memoryStore();
    await expect(desk.conversation("sam", { store, lm, approve: "changes" }).send("Refund A-1")).rejects.toBeInstanceOf(Waiting);
    ORDERS["A-1"]!.status = "found again"; // the shop's data moves on while the turn waits for a person
    const later = scripted(["Refunded."]);
    const [turn] = await desk.conversation("sam", { store, lm: later }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Refunded.");
    const shown = later.requests.at(-1)!.messages.filter((m) => m.role === "tool" && m.name === "lookup_order").map((m) => m.content);
    expect(shown).toEqual([JSON.stringify({ status: "lost by the carrier" })]);
  });
});
