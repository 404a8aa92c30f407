// Real Chromium: what an IndexedDB read hands out and what an append keeps (the browser's own structured clone),
// against memoryStore (the cases: fixtures/hunt26-record-cases.ts; in Node with fake-indexeddb: hunt26-records).
import { deleteDB } from "idb";
import { afterEach } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import type { Store } from "../../src/store/types.js";
import { freshName } from "./indexeddb-cases.js";
import { recordCases } from "./fixtures/hunt26-record-cases.js";

const opened: Store[] = [];
const names: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close?.()));
  await Promise.all(names.splice(0).map((n) => deleteDB(n)));
});

recordCases([
  [
    "indexedDB store (Chromium)",
    async () => {
      const name = freshName();
      names.push(name);
      const store = indexedDBStore(name);
      opened.push(store);
      return store;
    },
  ],
]);
