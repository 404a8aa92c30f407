/**
 * Hunt 98: the memory store writes a batch's JSON before it pushes anything, and that JSON calls the records' own
 * getters and `toJSON`. One of them that appends to the same conversation (a record that logs itself, a plugin's
 * object with a side effect) got in between: the batch was written with seqs counted from the length before, so two
 * records carried the same seq, and an `expect` that was no longer the length was taken as if it were. A record's
 * seq is now its place, and the batch is refused `store-conflict` as any append that lost its race.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { codeOf, get, rec } from "./contract.js";
import { noteReadOnce } from "./fixtures/read-once.js";

/** A record whose `text` getter, read once as the batch is written, appends one record to `conversation` itself. */
function appendingWhileWritten(store: ReturnType<typeof memoryStore>, conversation: string): Record<string, unknown> {
  return noteReadOnce(() => void store.append(conversation, [rec("note", { text: "inner" })]));
}

describe("memory store: an append made while a batch's JSON is written", () => {
  it("without expect: each record's seq is its place (none given twice)", async () => {
    const store = memoryStore();
    await store.append("c", [rec("note", { text: "first" })]);
    expect(await store.append("c", [appendingWhileWritten(store, "c")])).toBe(3);
    const got = await store.read("c");
    expect(got.map((r) => [r.seq, get(r, "text")])).toEqual([
      [1, "first"],
      [2, "inner"],
      [3, "outer"],
    ]);
    expect((await store.read("c", 2)).map((r) => r.seq)).toEqual([3]);
  });

  it("with expect: the batch is refused store-conflict and nothing of it is written", async () => {
    const store = memoryStore();
    await store.append("c", [rec("note", { text: "first" })]);
    expect(await codeOf(() => store.append("c", [appendingWhileWritten(store, "c")], { expect: 1 }))).toBe("store-conflict");
    expect((await store.read("c")).map((r) => [r.seq, get(r, "text")])).toEqual([
      [1, "first"],
      [2, "inner"],
    ]);
  });
});
