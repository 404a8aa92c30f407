/**
 * Hunt 104, the IndexedDB store's cases (on fake-indexeddb: hunt104-batch-array.test.ts, which says what was wrong;
 * in Chromium: hunt104-batch-array.browser.test.ts).
 */
import { describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { get, rec } from "./contract.js";
import { noteReadOnce } from "./fixtures/read-once.js";
import { freshName } from "./indexeddb-cases.js";

/** A batch whose first record, as its JSON is written, changes the batch array itself (`change` is given the array). */
export function changingBatch(change: (batch: object[]) => void, ...rest: object[]): object[] {
  const batch: object[] = [];
  const record = noteReadOnce(() => change(batch));
  batch.push(record, ...rest);
  return batch;
}

/** The IndexedDB store given a batch array changed while its records' JSON is written. */
export function hunt104BatchCases(): void {
  describe("indexedDB store: a batch array changed while its records' JSON is written", () => {
    it("one pushed to it: the length stored is the count of records written, and the conversation reads back", async () => {
      const store = indexedDBStore(freshName());
      await store.append("c", [rec("note", { text: "first" })]);
      const n = await store.append(
        "c",
        changingBatch((batch) => batch.push(rec("note", { text: "late" }))),
      );
      const got = await store.read("c");
      expect(got.map((r) => [r.seq, get(r, "text")])).toEqual([
        [1, "first"],
        [2, "outer"],
      ]);
      expect(n).toBe(2);
      expect(await store.length!("c")).toBe(2);
      await store.close!();
    });

    it("one cut from it: every record written is within the length, and the next append lands after them", async () => {
      const store = indexedDBStore(freshName());
      const n = await store.append(
        "c",
        changingBatch((batch) => batch.pop(), rec("note", { text: "second" })),
      );
      expect(n).toBe(2);
      expect(await store.append("c", [rec("note", { text: "third" })])).toBe(3);
      expect((await store.read("c")).map((r) => [r.seq, get(r, "text")])).toEqual([
        [1, "outer"],
        [2, "second"],
        [3, "third"],
      ]);
      await store.close!();
    });
  });
}
