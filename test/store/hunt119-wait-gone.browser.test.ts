// Real Chromium: a wait pending while another tab deletes the database or opens a newer schema version of it.
import { afterEach, describe, expect, it } from "vitest";
import { deleteDB, openDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";
import { freshName, note, rejection } from "./indexeddb-cases.js";

/** Settles within `ms`, or says it did not (a wait left hanging shows as "pending", not as the test's timeout). */
const within = async <T>(p: Promise<T>, ms: number): Promise<T | "pending"> =>
  Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), ms))]);

/** A store holding one record of "sam", whose `wait` reads the length only every 10 minutes unless something wakes it. */
async function waiting(name: string): Promise<{ store: Store; wait: Promise<unknown> }> {
  const store = indexedDBStore(name, { pollMs: 600_000 });
  await store.append("sam", [note("a")]);
  const wait = rejection(store.wait!("sam", 1, Number.POSITIVE_INFINITY));
  await store.length!("sam"); // (the wait has read the length once: it is waiting)
  return { store, wait };
}

describe("indexedDBStore: a wait pending while another tab takes the database away", () => {
  const names: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close?.()));
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  // The handle hears the deletion at once (versionchange) and refuses every later call, but the wait went on
  // sleeping until its next look at the length (2 s, or pollMs: here 10 minutes; with no deadline, that long).
  it("a deletion: the wait ends at once with store-io (deleted), not at its next poll", async () => {
    const name = freshName();
    names.push(name);
    const { store, wait } = await waiting(name);
    stores.push(store);
    await deleteDB(name); // another tab (not blocked: the store lets go of its connection)
    const e = await within(wait, 5_000);
    expect(isFunctaiError(e, "store-io")).toBe(true);
    expect((e as Error).message).toContain("deleted");
  });

  it("a newer schema version: the wait ends at once with store-io naming it, never taken for nothing appended", async () => {
    const name = freshName();
    names.push(name);
    const { store, wait } = await waiting(name);
    stores.push(store);
    const newer = await openDB(name, 2); // a newer version of the app in another tab
    try {
      const e = await within(wait, 5_000);
      expect(isFunctaiError(e, "store-io")).toBe(true);
      expect((e as Error).message).toMatch(/schema version 2/);
    } finally {
      newer.close();
    }
  });
});
