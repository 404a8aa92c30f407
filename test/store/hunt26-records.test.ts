/**
 * What a read of the file and IndexedDB stores hands out: records of its own,
 * as the memory store gives (hunt18-aliasing). The fs store's read cache kept
 * parsed records, frozen at their own keys only, and handed the same objects
 * to every read: a reader (or a tool run on a resumed turn's recorded input)
 * that changed something nested in a record changed what every later read of
 * that store gave, the engine's included, while the file said otherwise.
 * And what append keeps: a record's JSON, as memoryStore keeps it.
 */
import "fake-indexeddb/auto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { fsStore, type FsStoreOptions } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";
import { rec } from "./contract.js";
import { recordCases } from "./fixtures/hunt26-record-cases.js";

const dirs: string[] = [];
const opened: Store[] = [];
const databases: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close?.();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  for (const name of databases.splice(0)) await deleteDB(name);
});

const fsAt = async (options: FsStoreOptions = {}): Promise<Store> => {
  const dir = await mkdtemp(join(tmpdir(), "functai-hunt26-"));
  dirs.push(dir);
  const store = fsStore(dir, options);
  opened.push(store);
  return store;
};

const stores: [string, () => Promise<Store>][] = [
  ["fs store", () => fsAt()],
  ["fs store, a small chunk", () => fsAt({ scanChunkBytes: 7 })],
  ["fs store, no read cache", () => fsAt({ readCacheBytes: 0 })],
  [
    "indexedDB store (fake-indexeddb)",
    async () => {
      const name = `functai-hunt26-${crypto.randomUUID()}`;
      databases.push(name);
      const store = indexedDBStore(name, { locks: null });
      opened.push(store);
      return store;
    },
  ],
];

recordCases(stores);

describe("fs store: what the file holds", () => {
  it("one seq a line, the store's, whatever seq the record or its toJSON carried", async () => {
    const dir = await mkdtemp(join(tmpdir(), "functai-hunt26-"));
    dirs.push(dir);
    const store = fsStore(dir);
    opened.push(store);
    const carried = { ...rec(), toJSON: () => ({ functai_conversation: 1, kind: "note", at: "x", seq: 99 }) };
    await store.append("c", [carried, { ...rec(), seq: 5, nested: { seq: 3 } }]);
    const lines = (await readFile(join(dir, "conversations", "c.jsonl"), "utf8")).split("\n").filter((l) => l !== "");
    expect(lines.map((l) => l.match(/"seq":/g)?.length)).toEqual([1, 2]); // (the second's nested one is its own)
    expect(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2]);
  });
});
