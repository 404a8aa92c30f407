/**
 * The stores' wait/close contract (fixtures/hunt69-close-contract.ts) on
 * memory, node-fs and IndexedDB (fake-indexeddb here; Chromium in
 * hunt69-closed-wait.browser.test.ts). The fs store answered a wait begun
 * after its close false at once, after one look at the file, while it goes on
 * reading and appending after a close: a send queued behind a running turn
 * spun (wait, false, read, wait …) until the turn ended.
 */
import "fake-indexeddb/auto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deleteDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { fsStore } from "../../adapters/node-fs/index.js";
import { memoryStore } from "../../src/index.js";
import { closedWaitContract } from "./fixtures/hunt69-close-contract.js";
import { freshName } from "./indexeddb-cases.js";

closedWaitContract("memory store", async () => ({ store: memoryStore() }));

closedWaitContract("fs store", async () => {
  const dir = await mkdtemp(join(tmpdir(), "functai-hunt69-"));
  return {
    store: fsStore(dir, { pollMs: 10 }),
    reopen: async () => fsStore(dir, { pollMs: 10 }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

closedWaitContract("indexedDBStore (fake-indexeddb)", async () => {
  const name = freshName();
  return { store: indexedDBStore(name), reopen: async () => indexedDBStore(name), cleanup: () => deleteDB(name) };
});
