// fake-indexeddb in Node: a fast unit check. The real check is Chromium (indexeddb.browser.test.ts).
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { deleteDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { freshName, indexedDBCases } from "./indexeddb-cases.js";
import { storeContract } from "./contract.js";

storeContract("indexedDBStore", async () => {
  const name = freshName();
  return { store: indexedDBStore(name), reopen: async () => indexedDBStore(name), cleanup: () => deleteDB(name) };
});
indexedDBCases();

describe("indexedDBStore in Node", () => {
  it("has no liveness where there are no Web Locks", async () => {
    expect((globalThis as { navigator?: { locks?: unknown } }).navigator?.locks).toBeUndefined();
    const s = indexedDBStore(freshName());
    expect(s.liveness).toBeUndefined();
    expect("liveness" in s).toBe(false);
    await s.close!();
  });
});
