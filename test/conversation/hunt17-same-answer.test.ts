/**
 * Two people answer one interrupted turn's unfinished tool: the first
 * answer written stands, and the other resume is refused (`turn-state`)
 * "unless it said the same" (README). Said the same is the same JSON, not
 * the same key order: a store may keep an object's keys in its own order
 * (PostgreSQL's jsonb sorts them), so a person who resumes with exactly
 * what the first person gave was refused as if they had said something
 * else. And a result JSON cannot keep, given for a call another person
 * already answered, was a raw TypeError from JSON.stringify, not the
 * `input-invalid` it is for a call still unfinished.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, type Store } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { payDesk, isToolDone } from "./fixtures/pay-desk.js";

/** Keys sorted as jsonb keeps them (shorter first, then by bytes), at every depth. */
function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder);
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, jsonbOrder((value as Record<string, unknown>)[k])]));
}

/** A memory store that gives its records back with their keys in jsonb's order. */
function reorderingStore(inner: Store): Store {
  return {
    append: (c, records, opts) => inner.append(c, records, opts),
    read: async (c, after) => (await inner.read(c, after)).map((r) => jsonbOrder(r) as ConversationRecord),
    ...(inner.wait && { wait: inner.wait.bind(inner) }),
    durability: "memory",
  };
}

/** A turn whose process lost its store just after pay ran: pay (invocation 1) is unfinished. */
async function interrupted(wrap: (s: Store) => Store = (s) => s) {
  const { d: desk, paid } = payDesk();
  const inner = memoryStore();
  const store = wrap(inner);
  const faulty = faultyStore(inner, { failOn: (call) => (call.records.some(isToolDone) ? "before-write" : undefined), crash: true });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  await expect(desk.conversation("c", { store: faulty, lm }).send("pay 5")).rejects.toMatchObject({ code: "store-io" });
  const [turn] = await desk.conversation("c", { store, lm: scripted(["paid"]) }).turns();
  expect(turn!.unfinished.map((u) => [u.name, u.invocation])).toEqual([["pay", 1]]);
  return { turn: turn!, inner, store, paid };
}

/** Another person's answer, as their resume writes it, its process gone before it claimed the turn. */
async function givenElsewhere(
  inner: Store,
  turn: { id: string; unfinished: { site: string; invocation: number; name: string; path: string }[] },
  output: unknown,
) {
  const t = turn.unfinished[0]!;
  const length = (await inner.read("c")).length;
  await inner.append(
    "c",
    [makeRecord("tool", { turn: turn.id, site: t.site, invocation: t.invocation, name: t.name, path: t.path, state: "given", output }, Date.now())],
    { expect: length },
  );
}

describe("a resume that says what another person already said", () => {
  it("the same object result, kept by a store in another key order: it goes on (not refused turn-state)", async () => {
    const { turn, inner, paid } = await interrupted(reorderingStore);
    const result = { status: "sent", id: 7 };
    await givenElsewhere(inner, turn, result);
    expect(await turn.resume({ results: { 1: { status: "sent", id: 7 } } })).toBe("paid");
    expect(paid).toEqual([5]);
    expect(turn.state).toBe("done");
  });

  it("another result than the one given is still refused (turn-state), nothing written", async () => {
    const { turn, inner } = await interrupted(reorderingStore);
    await givenElsewhere(inner, turn, { status: "sent", id: 7 });
    const length = (await inner.read("c")).length;
    await expect(turn.resume({ results: { 1: { status: "sent", id: 8 } } })).rejects.toMatchObject({ code: "turn-state" });
    expect(await inner.read("c")).toHaveLength(length);
  });

  it("a result JSON cannot keep, for a call another person answered: input-invalid, not a TypeError", async () => {
    const { turn, inner } = await interrupted();
    await givenElsewhere(inner, turn, "paid 5");
    const length = (await inner.read("c")).length;
    const thrown = await turn.resume({ results: { 1: 5n } }).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/pay/) });
    expect(await inner.read("c")).toHaveLength(length);
  });
});
