/**
 * A record of a kind this version knows that fails its schema (written by
 * hand, by a buggy host, or damaged in a database) is refused with
 * `store-corrupt`, naming it: a conversation is never read as if it were
 * not there (a turn whose `ended` record is skipped reads `interrupted`,
 * and could be resumed and run again). Kinds and formats this version does
 * not know are still skipped (DESIGN: "A reader skips kinds and keys it
 * does not know").
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });
const payCall = (amount: number) => ({ toolCalls: [{ id: `pay-${amount}`, name: "pay", input: { amount } }] });

/** The records of a conversation with one done turn, each as written (no seq), after `edit`. */
async function doneTurn(edit: (record: Record<string, unknown>) => Record<string, unknown>): Promise<Store> {
  const first = memoryStore();
  expect(await desk.conversation("c", { store: first, lm: scripted(["hello"]) }).send("hi")).toBe("hello");
  const store = memoryStore();
  await store.append(
    "c",
    (await first.read("c")).map(({ seq: _seq, ...record }) => edit(record)),
  );
  return store;
}

describe("a malformed record of a known kind", () => {
  const cases: [string, (r: Record<string, unknown>) => Record<string, unknown>, RegExp][] = [
    ["an ended record with a state no turn has", (r) => (r.kind === "ended" ? { ...r, state: "exploded" } : r), /record 5\b.*ended/],
    ["a turn record whose inputs are not an object", (r) => (r.kind === "turn" ? { ...r, inputs: 5 } : r), /record 2\b.*turn/],
    ["a lease whose until is not a time", (r) => (r.kind === "lease" ? { ...r, until: "soon" } : r), /record 3\b.*lease/],
  ];
  for (const [what, edit, names] of cases) {
    it(`${what}: turns() and send() refuse with store-corrupt naming it; nothing is asked of the model or written`, async () => {
      const store = await doneTurn(edit);
      const length = (await store.read("c")).length;
      const lm = scripted(["again"]);
      const chat = desk.conversation("c", { store, lm });
      await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(names) });
      await expect(chat.send("hi again")).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(names) });
      expect(lm.requests).toHaveLength(0);
      expect(await store.read("c")).toHaveLength(length);
    });
  }

  it("an approval with a verdict that is neither yes nor no, after a turn waited: the turn is not resumed on it", async () => {
    const store = memoryStore();
    const chat = desk.conversation("w", { store, approve: "changes" });
    const waiting = await chat.send("pay 5", { lm: scripted([payCall(5)]) }).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    const [turn] = await chat.turns();
    const asked = turn!.waiting[0]!;
    await store.append("w", [
      { functai_conversation: 1, kind: "approval", at: new Date().toISOString(), turn: turn!.id, site: "desk#1", invocation: asked.invocation, path: asked.path, verdict: "maybe", by: "sam", reason: null },
    ]);
    const lm = scripted(["paid"]);
    const again = desk.conversation("w", { store, lm });
    await expect(again.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(/approval/) });
    expect(lm.requests).toHaveLength(0);
  });

  it("a kind or a format this version does not know is still skipped: the conversation goes on", async () => {
    const store = await doneTurn((r) => r);
    const at = new Date().toISOString();
    await store.append("c", [
      { functai_conversation: 1, kind: "note-from-the-future", at },
      { functai_conversation: 2, kind: "ended", at, turn: "t-later" },
    ]);
    const chat = desk.conversation("c", { store, lm: scripted(["again"]) });
    expect((await chat.turns()).map((t) => t.state)).toEqual(["done"]);
    expect(await chat.send("hi again")).toBe("again");
  });
});
