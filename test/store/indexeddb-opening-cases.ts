/**
 * Opening the database, run by both projects (real Chromium in
 * indexeddb-opening.browser.test.ts, fake-indexeddb in
 * indexeddb-opening.test.ts): an open another tab keeps waiting, a database
 * of a newer schema version, another program's database of the same name.
 * Each is a store-io that says what is wrong and what to do, never a hang
 * nor the browser's own words alone.
 */
import { deleteDB, openDB } from "idb";
import { describe, expect, it, vi } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";
import { freshName, note, textOf } from "./indexeddb-cases.js";

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

/** Settles within `ms`, or says it did not (a hang shows as "pending", not as the test's timeout). */
const within = async <T>(p: Promise<T>, ms: number): Promise<T | "pending"> =>
  Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), ms))]);

/** A database our store wrote one record to, then closed. */
async function written(name: string): Promise<void> {
  const s = indexedDBStore(name);
  await s.append("sam", [note("before")]);
  await s.close!();
}

export function indexedDBOpeningCases(): void {
  describe("indexedDBStore: an open another tab keeps waiting", () => {
    it("fails within openTimeoutMs (store-io: close the other tab), wait fails too, and a later attempt succeeds once that tab lets go", async () => {
      const name = freshName();
      await written(name);
      // Another tab of the origin: a connection that ignores versionchange, and a deletion it blocks.
      const other = await openDB(name);
      const deleting = deleteDB(name);
      const s = indexedDBStore(name, { openTimeoutMs: 300 });
      try {
        const e = await within(rejection(s.read("sam")), 10_000);
        expect(e).not.toBe("pending");
        expect(isFunctaiError(e, "store-io")).toBe(true);
        expect((e as Error).message).toContain(name);
        expect((e as Error).message).toMatch(/300 ms/);
        expect((e as Error).message).toMatch(/close/i);
        const w = await within(rejection(s.wait!("sam", 0, 60_000)), 10_000);
        expect(isFunctaiError(w, "store-io")).toBe(true);
        const a = await within(rejection(s.append("sam", [note("x")])), 10_000);
        expect(isFunctaiError(a, "store-io")).toBe(true);
        other.close(); // the other tab lets go: the deletion goes through
        await deleting;
        expect(await s.read("sam")).toEqual([]);
        expect(await s.append("sam", [note("after")], { expect: 0 })).toBe(1);
        expect((await s.read("sam")).map(textOf)).toEqual(["after"]);
      } finally {
        other.close();
        await s.close!();
        await deleteDB(name);
      }
    });

    it("close() while the open waits returns at once; the connection opened later is closed, blocking no one", async () => {
      const name = freshName();
      await written(name);
      const other = await openDB(name);
      const deleting = deleteDB(name);
      const s = indexedDBStore(name, { openTimeoutMs: 60_000 });
      const reading = rejection(s.read("sam"));
      await new Promise((r) => setTimeout(r, 50));
      try {
        expect(await within(s.close!().then(() => "closed"), 2_000)).toBe("closed");
        expect(isFunctaiError(await within(reading, 2_000), "store-io")).toBe(true);
      } finally {
        other.close();
      }
      await deleting;
      // the store's late connection is closed: a deletion now is not blocked by it
      let blocked = false;
      expect(await within(deleteDB(name, { blocked: () => (blocked = true) }).then(() => "deleted"), 5_000)).toBe("deleted");
      expect(blocked).toBe(false);
    });

    it("close() of a store whose database is open closes its connection before it returns", async () => {
      const name = freshName();
      const s = indexedDBStore(name);
      await s.append("sam", [note("a")]);
      const closes = vi.spyOn(IDBDatabase.prototype, "close");
      try {
        await s.close!();
        expect(closes).toHaveBeenCalledTimes(1);
      } finally {
        closes.mockRestore();
        await deleteDB(name);
      }
    });

    it("an openTimeoutMs that is not a positive number of milliseconds is refused (input-invalid)", () => {
      for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "5"]) {
        let e: unknown;
        try {
          indexedDBStore(freshName(), { openTimeoutMs: bad as unknown as number });
        } catch (caught) {
          e = caught;
        }
        expect(isFunctaiError(e, "input-invalid")).toBe(true);
        expect((e as Error).message).toMatch(/openTimeoutMs/);
      }
    });
  });

  describe("indexedDBStore: a database it cannot use", () => {
    // each with its handler at once: one refusal awaited while the next is still unhandled is no failure of the store
    const refusals = (s: Store): Promise<unknown>[] =>
      [s.read("sam"), s.append("sam", [note("x")]), s.length!("sam"), s.list!(), s.wait!("sam", 0, 60_000)].map(rejection);
    /** Every call of `s` is refused with a store-io naming the database and saying each of `says`. */
    const allRefused = async (s: Store, name: string, says: RegExp[]): Promise<void> => {
      for (const op of refusals(s)) {
        const e = await within(op, 5_000);
        expect(isFunctaiError(e, "store-io")).toBe(true);
        const message = (e as Error).message;
        expect(message).toContain(name);
        for (const said of says) expect(message).toMatch(said);
      }
    };

    it("a newer schema version: store-io names the versions and says what to do, and nothing is written", async () => {
      const name = freshName();
      await written(name);
      const newer = await openDB(name, 7, { upgrade: (db) => db.createObjectStore("newer") });
      newer.close();
      const s = indexedDBStore(name);
      try {
        await allRefused(s, name, [/version 7/, /newer/, /update|another name/i]);
        const db = await openDB(name);
        expect(db.version).toBe(7);
        expect(await db.get("lengths", "sam")).toBe(1);
        db.close();
      } finally {
        await s.close!();
        await deleteDB(name);
      }
    });

    it("another program's database of the same name: store-io says so, and the database is left as it was", async () => {
      const name = freshName();
      const theirs = await openDB(name, 1, {
        upgrade: (db) => {
          db.createObjectStore("records"); // one name in common, not the other
          db.createObjectStore("todos");
        },
      });
      await theirs.put("records", { mine: true }, "k");
      theirs.close();
      const s = indexedDBStore(name);
      try {
        await allRefused(s, name, [/another program/, /"lengths"/, /another name/]);
        const db = await openDB(name);
        expect([...db.objectStoreNames].sort()).toEqual(["records", "todos"]);
        expect(await db.get("records", "k")).toEqual({ mine: true });
        db.close();
      } finally {
        await s.close!();
        await deleteDB(name);
      }
    });
  });
}
