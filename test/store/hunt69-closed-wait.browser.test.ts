// Real Chromium: the stores' wait/close contract (fixtures/hunt69-close-contract.ts) on IndexedDB and the memory store.
import { deleteDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { memoryStore } from "../../src/index.js";
import { closedWaitContract } from "./fixtures/hunt69-close-contract.js";
import { freshName } from "./indexeddb-cases.js";

closedWaitContract("indexedDBStore (Chromium)", async () => {
  const name = freshName();
  return { store: indexedDBStore(name), reopen: async () => indexedDBStore(name), cleanup: () => deleteDB(name) };
});

closedWaitContract("memory store (Chromium)", async () => ({ store: memoryStore() }));
