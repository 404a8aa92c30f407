// Real Chromium: a database deleted under a handle without a `versionchange` (the browser clearing the site's
// data, DevTools' "Delete database"): the browser force-closes every connection (a `close` event) and deletes it.
import { afterEach, describe, expect, it } from "vitest";
import { cdp } from "vitest/browser";
import { deleteDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";
import { freshName, note, textOf } from "./indexeddb-cases.js";

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => "resolved",
    (e: unknown) => e,
  );

/** Deletes database `name` of this origin as DevTools and "clear site data" do: connections are closed, not asked. */
async function forceDelete(name: string): Promise<void> {
  const raw = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(name);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  let asked = false;
  raw.onversionchange = () => (asked = true);
  const closed = new Promise<void>((r) => (raw.onclose = () => r()));
  await (cdp() as { send(method: string, params: object): Promise<unknown> }).send("IndexedDB.deleteDatabase", {
    securityOrigin: location.origin,
    databaseName: name,
  });
  await closed; // the browser closed the connections (every one of them, the store's too)
  expect(asked).toBe(false); // no versionchange: the store is not told the way another tab's deleteDatabase tells it
}

describe("indexedDBStore: the browser deletes the database under a handle (no versionchange)", () => {
  const names: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close?.()));
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  // README "Stores": "A handle whose database another tab deletes (or the browser, clearing the site's data)
  // refuses from then on (store-io): a turn going on through it would write its later records where no reader
  // finds them." Before the fix the browser's forced close (`terminated`) only dropped the connection, and the
  // next append opened a new, empty database: it returned 1 (seq 1 again) as if the conversation went on.
  it("refuses from then on (store-io), writing nothing into a new database; a new handle starts afresh", async () => {
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name);
    stores.push(s);
    expect(await s.append("sam", [note("a"), note("b")])).toBe(2);
    await forceDelete(name);
    for (const op of [
      () => s.append("sam", [note("c")]),
      () => s.append("sam", [note("d")], { expect: 0 }),
      () => s.read("sam"),
      () => s.wait!("sam", 0, 60_000),
      () => s.list!(),
    ]) {
      const e = await rejection(op());
      expect(isFunctaiError(e, "store-io")).toBe(true);
    }
    const later = await rejection(s.append("sam", [note("e")]));
    expect(later).toMatchObject({ code: "store-io", message: expect.stringContaining("deleted") });
    const fresh = indexedDBStore(name);
    stores.push(fresh);
    expect(await fresh.read("sam")).toEqual([]); // none of the refused appends was written anywhere
    expect(await fresh.append("sam", [note("new")], { expect: 0 })).toBe(1);
    expect((await fresh.read("sam")).map(textOf)).toEqual(["new"]);
  });

  it("a handle that never opened the database is not affected: it creates it on first use", async () => {
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name);
    stores.push(s);
    expect(await s.read("sam")).toEqual([]);
    expect(await s.append("sam", [note("a")], { expect: 0 })).toBe(1);
  });
});
