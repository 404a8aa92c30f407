/**
 * Hunt 104: the IndexedDB store writes a batch's records as their JSON gives them (read once, before the transaction),
 * then counted the batch by the array it was given. A record's getter or toJSON that pushes to that array, or cuts it,
 * made the stored length disagree with the records written: one more (every read of the conversation then refused
 * store-corrupt, "records missing"), or one fewer (a record standing past the length: the next append refused
 * store-corrupt). The length now counts the records written. The file store, given such a batch, failed store-io
 * with a TypeError (a hole in the batch). Both now write the batch as the array was when append was called.
 */
import "fake-indexeddb/auto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { get, rec } from "./contract.js";
import { changingBatch, hunt104BatchCases } from "./hunt104-batch-cases.js";

hunt104BatchCases();

describe("fs store: a batch array cut while its records' JSON is written", () => {
  it("the batch as given is written (never a TypeError under the lock)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "functai-hunt104-"));
    try {
      const store = fsStore(dir);
      const n = await store.append(
        "c",
        changingBatch((batch) => batch.pop(), rec("note", { text: "second" })),
      );
      expect(n).toBe(2);
      expect((await fsStore(dir).read("c")).map((r) => [r.seq, get(r, "text")])).toEqual([
        [1, "outer"],
        [2, "second"],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// the memory store, given such a batch, left a hole in its list (cut: every later read threw a TypeError) or wrote the
// record pushed meanwhile too (unlike every other store): it now writes the batch as the array was too
describe("memory store: a batch array changed while its records' JSON is written", () => {
  it("one cut from it: the batch as given is written, and reads back whole", async () => {
    const store = memoryStore();
    expect(
      await store.append(
        "c",
        changingBatch((batch) => batch.pop(), rec("note", { text: "second" })),
      ),
    ).toBe(2);
    expect((await store.read("c")).map((r) => [r.seq, get(r, "text")])).toEqual([
      [1, "outer"],
      [2, "second"],
    ]);
  });

  it("one pushed to it: only the batch as given is written", async () => {
    const store = memoryStore();
    expect(
      await store.append(
        "c",
        changingBatch((batch) => batch.push(rec("note", { text: "late" }))),
      ),
    ).toBe(1);
    expect((await store.read("c")).map((r) => [r.seq, get(r, "text")])).toEqual([[1, "outer"]]);
  });
});
