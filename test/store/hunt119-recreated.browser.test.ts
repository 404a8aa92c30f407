// Real Chromium: the browser deletes the database under a handle (clearing the site's data, DevTools: a forced close,
// no versionchange), and another tab, or this one reloaded, makes it anew before the old handle is used again.
import { afterEach, describe, expect, it } from "vitest";
import { cdp } from "vitest/browser";
import { deleteDB, openDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";
import { freshName, note, rejection, textOf } from "./indexeddb-cases.js";

/** Settles within `ms`, or says it did not (a wait left hanging shows as "pending", not as the test's timeout). */
const within = async <T>(p: Promise<T>, ms: number): Promise<T | "pending"> =>
  Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), ms))]);

/** Deletes the database as the browser does when the site's data is cleared: every connection is closed (a `close` event). */
async function clearSiteData(name: string): Promise<void> {
  const raw = await openDB(name);
  const closed = new Promise<void>((r) => raw.addEventListener("close", () => r()));
  await (cdp() as { send(method: string, params: object): Promise<unknown> }).send("IndexedDB.deleteDatabase", {
    securityOrigin: location.origin,
    databaseName: name,
  });
  await closed;
}

describe("indexedDBStore: the browser deletes the database, and a new handle makes it anew before the old one is used again", () => {
  const names: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close?.()));
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  // README "Stores": "A handle whose database another tab deletes (or the browser, clearing the site's data) refuses
  // from then on (store-io)". Before the fix the old handle only found out by opening an empty database: once another
  // handle had made it anew, the old one read that database's conversations as its own and appended into them
  // (a turn going on there wrote its later records into another tab's conversation).
  it("the old handle refuses (store-io, deleted), never reads nor writes the new database", async () => {
    const name = freshName();
    names.push(name);
    const old = indexedDBStore(name);
    stores.push(old);
    expect(await old.append("sam", [note("old 1"), note("old 2")])).toBe(2);
    await clearSiteData(name);
    const fresh = indexedDBStore(name); // another tab, or this page reloaded
    stores.push(fresh);
    expect(await fresh.append("sam", [note("new 1")], { expect: 0 })).toBe(1);

    for (const op of [() => old.read("sam"), () => old.append("sam", [note("old 3")]), () => old.append("ann", [note("old")]), () => old.list!()]) {
      const e = await rejection(op());
      expect(isFunctaiError(e, "store-io")).toBe(true);
      expect((e as Error).message).toContain("deleted");
    }
    expect((await fresh.read("sam")).map(textOf)).toEqual(["new 1"]);
    expect(await fresh.list!()).toEqual(["sam"]);
  });

  // A wait pending on the handle went on until its next look at the length (every 2 s, or pollMs), though the
  // browser had told the handle at once (the connection's close event).
  it("a wait pending on the handle ends at once with store-io (deleted), not at its next poll", async () => {
    const name = freshName();
    names.push(name);
    const old = indexedDBStore(name, { pollMs: 600_000 });
    stores.push(old);
    expect(await old.append("sam", [note("old 1")])).toBe(1);
    const waiting = rejection(old.wait!("sam", 1, Number.POSITIVE_INFINITY));
    await old.length!("sam"); // (the wait has read the length once: it is waiting)
    await clearSiteData(name);
    const e = await within(waiting, 5_000);
    expect(isFunctaiError(e, "store-io")).toBe(true);
    expect((e as Error).message).toContain("deleted");
  });
});
