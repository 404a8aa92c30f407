/**
 * IndexedDB-specific store tests, run by both projects: in real Chromium
 * (indexeddb.browser.test.ts) and on fake-indexeddb in Node
 * (indexeddb.node.test.ts). The shared contract (contract.ts) runs beside them.
 */
import { deleteDB, openDB, unwrap } from "idb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import type { IndexedDBStoreOptions } from "../../adapters/indexeddb/store.js";
import { isFunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";

export const freshName = (): string => `functai-test-${crypto.randomUUID()}`;

export const note = (text: string): object => ({ functai_conversation: 1, kind: "note", at: new Date().toISOString(), text });

/** A note's text, as read back. */
export const textOf = (r: object): unknown => (r as { text?: unknown }).text;

/**
 * Opens handles on fresh databases (with `options`) and closes and deletes
 * them after each test; `fresh` opens one on a new database and says its name.
 */
export function handles(options?: IndexedDBStoreOptions): { open(name?: string): Store; fresh(): { name: string; s: Store } } {
  const opened: { name: string; store: Store }[] = [];
  afterEach(async () => {
    await Promise.all(opened.map((h) => h.store.close?.()));
    await Promise.all([...new Set(opened.map((h) => h.name))].map((n) => deleteDB(n)));
    opened.length = 0;
  });
  const open = (name = freshName()): Store => {
    const store = indexedDBStore(name, options);
    opened.push({ name, store });
    return store;
  };
  return {
    open,
    fresh() {
      const name = freshName();
      return { name, s: open(name) };
    },
  };
}

/**
 * Writes into a store's database behind its back, as another program of the
 * origin, an older version with a bug, or a hand in devtools could.
 */
export async function tamper(name: string, write: (records: IDBObjectStore, lengths: IDBObjectStore) => void): Promise<void> {
  const db = unwrap(await openDB(name));
  try {
    const tx = db.transaction(["records", "lengths"], "readwrite");
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error);
    });
    write(tx.objectStore("records"), tx.objectStore("lengths"));
    await done;
  } finally {
    db.close();
  }
}

/** What `p` rejects with (undefined when it resolves). */
export const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

export function indexedDBCases(): void {
  const h = handles();

  describe("indexedDBStore: appends", () => {
    it("numbers records from 1, reads after a position, counts and lists", async () => {
      const s = h.open();
      expect(await s.append("sam", [note("a"), note("b")])).toBe(2);
      expect(await s.append("sam", [note("c")], { expect: 2 })).toBe(3);
      expect(await s.append("kim", [note("x")])).toBe(1);
      expect((await s.read("sam")).map((r) => [r.seq, textOf(r)])).toEqual([[1, "a"], [2, "b"], [3, "c"]]);
      expect((await s.read("sam", 1)).map((r) => r.seq)).toEqual([2, 3]);
      expect(await s.read("sam", 3)).toEqual([]);
      expect(await s.length!("sam")).toBe(3);
      expect(await s.length!("nobody")).toBe(0);
      expect((await s.list!()).sort()).toEqual(["kim", "sam"]);
      expect(s.durability).toBe("disk");
    });

    it("keeps records across handles: a new handle of the same name reads them", async () => {
      const name = freshName();
      const a = h.open(name);
      await a.append("sam", [note("kept")]);
      await a.close!();
      const b = h.open(name);
      expect((await b.read("sam")).map((r) => textOf(r))).toEqual(["kept"]);
    });

    it("an append opens a strict transaction unless told durable: false (the contract's default), then a relaxed one", async () => {
      const s = h.open();
      await s.length!("sam"); // opened before spying: only appends are seen
      const spy = vi.spyOn(IDBDatabase.prototype, "transaction");
      try {
        await s.append("sam", [note("started")], { durable: true });
        await s.append("sam", [note("unsaid")]);
        await s.append("sam", [note("reply")], { durable: false });
        const modes = spy.mock.calls.filter((c) => c[1] === "readwrite").map((c) => c[2]?.durability);
        expect(modes).toEqual(["strict", "strict", "relaxed"]);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe("indexedDBStore: all or none", () => {
    it("a record that is not JSON (a BigInt) refuses the batch before anything is written (input-invalid, as every store)", async () => {
      const s = h.open();
      await s.append("sam", [note("a"), note("b")]);
      const bad = { ...note("bad"), n: 1n };
      const e = await rejection(s.append("sam", [note("c"), note("d"), bad]));
      expect(isFunctaiError(e, "input-invalid")).toBe(true);
      expect(await s.length!("sam")).toBe(2);
      expect((await s.read("sam")).map((r) => textOf(r))).toEqual(["a", "b"]);
      // and the store goes on: the next append takes seq 3
      expect(await s.append("sam", [note("c")], { expect: 2 })).toBe(3);
      expect((await s.read("sam", 2)).map((r) => r.seq)).toEqual([3]);
    });

    it("a failed first append leaves no conversation behind", async () => {
      const s = h.open();
      const e = await rejection(s.append("sam", [note("a"), { ...note("bad"), n: 1n }]));
      expect(isFunctaiError(e, "input-invalid")).toBe(true);
      expect(await s.read("sam")).toEqual([]);
      expect(await s.list!()).toEqual([]);
    });

    it("a conflict writes nothing", async () => {
      const s = h.open();
      await s.append("sam", [note("a")]);
      const e = await rejection(s.append("sam", [note("b")], { expect: 0 }));
      expect(isFunctaiError(e, "store-conflict")).toBe(true);
      expect(await s.length!("sam")).toBe(1);
    });
  });

  describe("indexedDBStore: damage is refused (store-corrupt), never misread", () => {
    /** A store `name` holding "sam": a, b, c (seq 1–3), damaged by `write`. */
    const damaged = async (write: (records: IDBObjectStore, lengths: IDBObjectStore) => void): Promise<{ s: Store; name: string }> => {
      const name = freshName();
      const s = h.open(name);
      await s.append("sam", [note("a"), note("b"), note("c")]);
      await tamper(name, write);
      return { s, name };
    };
    const code = async (p: Promise<unknown>): Promise<unknown> => {
      const e = await rejection(p);
      return isFunctaiError(e) ? e.code : e;
    };

    it("a stored record that is not an object", async () => {
      for (const bad of ["text", 42, null, [1, 2]]) {
        const { s } = await damaged((records) => records.put(bad, ["sam", 2]));
        expect(await code(s.read("sam"))).toBe("store-corrupt");
        expect(await code(s.read("sam", 1))).toBe("store-corrupt");
        expect((await s.read("sam", 2)).map((r) => r.seq)).toEqual([3]); // what lies after the damage reads
      }
    });

    it("a stored record whose seq is not its place (wrong, missing, a string)", async () => {
      for (const seq of [7, undefined, "2"]) {
        const { s } = await damaged((records) => records.put({ ...note("b?"), seq }, ["sam", 2]));
        expect(await code(s.read("sam"))).toBe("store-corrupt");
      }
    });

    it("a record missing from the middle or the end is not read as a shorter conversation", async () => {
      for (const gone of [2, 3]) {
        const { s } = await damaged((records) => records.delete(["sam", gone]));
        expect(await code(s.read("sam"))).toBe("store-corrupt");
        expect(await code(s.read("sam", 1))).toBe("store-corrupt");
      }
    });

    it("a record past the conversation's length is refused, and never overwritten by an append", async () => {
      const { s, name } = await damaged((records) => records.put({ ...note("stray"), seq: 4 }, ["sam", 4]));
      expect(await code(s.read("sam"))).toBe("store-corrupt");
      expect(await code(s.append("sam", [note("d")]))).toBe("store-corrupt");
      expect(await code(s.append("sam", [note("d")], { expect: 3 }))).toBe("store-corrupt");
      // the stray record is still there, as it was
      const db = await openDB(name);
      try {
        expect(textOf((await db.get("records", ["sam", 4])) as object)).toBe("stray");
        expect(await db.get("lengths", "sam")).toBe(3);
      } finally {
        db.close();
      }
    });

    it("a stored length that is not a count: refused by length, read, wait and append, which writes nothing", async () => {
      for (const bad of ["3", -1, 1.5, Number.NaN, { n: 3 }]) {
        const { s, name } = await damaged((_records, lengths) => lengths.put(bad, "sam"));
        expect(await code(s.length!("sam"))).toBe("store-corrupt");
        expect(await code(s.read("sam"))).toBe("store-corrupt");
        expect(await code(s.wait!("sam", 3, 50))).toBe("store-corrupt");
        expect(await code(s.append("sam", [note("d")]))).toBe("store-corrupt");
        const db = await openDB(name);
        try {
          expect(await db.count("records")).toBe(3); // nothing written
        } finally {
          db.close();
        }
      }
    });

    it("list names only conversation ids (not another program's keys)", async () => {
      const { s } = await damaged((_records, lengths) => {
        lengths.put(1, "../etc");
        lengths.put(1, 42);
        lengths.put(1, ["kim"]);
      });
      expect(await s.list!()).toEqual(["sam"]);
    });
  });

  describe("indexedDBStore: two handles of one database (two tabs)", () => {
    it("racing appends with the same expect: exactly one wins each round", async () => {
      const name = freshName();
      const tabs = [h.open(name), h.open(name), h.open(name)];
      for (let round = 0; round < 8; round++) {
        const outcomes = await Promise.allSettled(
          tabs.map((t, i) => t.append("sam", [note(`r${round}-t${i}-a`), note(`r${round}-t${i}-b`)], { expect: round * 2 })),
        );
        const won = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [i] : []));
        expect(won).toHaveLength(1);
        expect((outcomes[won[0]!] as PromiseFulfilledResult<number>).value).toBe(round * 2 + 2);
        for (const o of outcomes) {
          if (o.status === "rejected") expect(isFunctaiError(o.reason, "store-conflict")).toBe(true);
        }
        // the winner's batch, whole and in order
        const batch = (await tabs[0]!.read("sam", round * 2)).map((r) => textOf(r));
        expect(batch).toEqual([`r${round}-t${won[0]}-a`, `r${round}-t${won[0]}-b`]);
      }
      expect(await tabs[2]!.length!("sam")).toBe(16);
    });

    it("wait on one handle wakes on an append by another, without waiting out its timeout", async () => {
      const name = freshName();
      const [a, b] = [h.open(name), h.open(name)];
      await a.append("sam", [note("a")]);
      let woke: boolean | undefined;
      const started = performance.now();
      const waiting = b.wait!("sam", 1, 20_000).then((v) => (woke = v));
      await new Promise((r) => setTimeout(r, 100));
      expect(woke).toBeUndefined(); // nothing new yet
      await a.append("sam", [note("b")]);
      expect(await waiting).toBe(true);
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it("a wait for another conversation is not woken", async () => {
      const name = freshName();
      const [a, b] = [h.open(name), h.open(name)];
      const waiting = b.wait!("kim", 0, 300);
      await a.append("sam", [note("a")]);
      expect(await waiting).toBe(false);
    });
  });

  describe("indexedDBStore: wait", () => {
    it("resolves at once when the conversation is already longer", async () => {
      const s = h.open();
      await s.append("sam", [note("a"), note("b")]);
      const started = performance.now();
      expect(await s.wait!("sam", 1, 20_000)).toBe(true);
      expect(performance.now() - started).toBeLessThan(2_000);
    });

    it("resolves false at its timeout when nothing is appended", async () => {
      const s = h.open();
      await s.append("sam", [note("a")]);
      const started = performance.now();
      expect(await s.wait!("sam", 1, 200)).toBe(false);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    });

    it("wakes on an append by the same handle", async () => {
      const s = h.open();
      const waiting = s.wait!("sam", 0, 20_000);
      await s.append("sam", [note("a")]);
      expect(await waiting).toBe(true);
    });

    it("close settles a pending wait with false; the closed handle refuses further use", async () => {
      const s = h.open();
      const waiting = s.wait!("sam", 0, 20_000);
      await new Promise((r) => setTimeout(r, 20));
      await s.close!();
      expect(await waiting).toBe(false);
      expect(isFunctaiError(await rejection(s.read("sam")), "store-io")).toBe(true);
    });
  });

  describe("indexedDBStore: closing", () => {
    it("an append that commits as its handle closes still wakes other handles; a closed handle keeps no channel open", async () => {
      const open = new Set<BroadcastChannel>();
      class Counted extends BroadcastChannel {
        constructor(name: string) {
          super(name);
          open.add(this);
        }
        override close(): void {
          open.delete(this);
          super.close();
        }
      }
      vi.stubGlobal("BroadcastChannel", Counted);
      try {
        const name = freshName();
        const [a, b] = [h.open(name), h.open(name)];
        await a.length!("sam"); // its database is open: the append below starts before the close
        const started = performance.now();
        const waiting = b.wait!("sam", 0, 20_000);
        await new Promise((r) => setTimeout(r, 20));
        const appended = a.append("sam", [note("last")]);
        await a.close!();
        expect(await appended).toBe(1); // it was under way: it commits
        expect(await waiting).toBe(true);
        expect(performance.now() - started).toBeLessThan(5_000); // told, not timed out
        expect(isFunctaiError(await rejection(a.wait!("sam", 0, 20_000)), "store-io")).toBe(true);
        await b.close!();
        expect(open.size).toBe(0);
      } finally {
        vi.unstubAllGlobals();
      }
    });
  });

  describe("indexedDBStore: another tab deletes or upgrades the database", () => {
    it("a deletion is not blocked by an open handle, which then refuses (store-io: its records are gone); a new handle starts afresh", async () => {
      const name = freshName();
      const s = h.open(name);
      await s.append("sam", [note("a")]);
      let blocked = false;
      await deleteDB(name, { blocked: () => (blocked = true) });
      expect(blocked).toBe(false);
      // a turn going on through this handle would write its later records where no reader can place them
      expect(await rejection(s.append("sam", [note("b")]))).toMatchObject({ code: "store-io", message: expect.stringContaining("deleted") });
      expect(isFunctaiError(await rejection(s.read("sam")), "store-io")).toBe(true);
      const fresh = h.open(name);
      expect(await fresh.read("sam")).toEqual([]);
      expect(await fresh.append("sam", [note("b")], { expect: 0 })).toBe(1);
    });

    it("an upgrade by a newer version is not blocked; this handle then refuses (store-io), never writes to it", async () => {
      const name = freshName();
      const s = h.open(name);
      await s.append("sam", [note("a")]);
      const newer = await openDB(name, 2, { upgrade: (db) => db.createObjectStore("newer") });
      try {
        expect(isFunctaiError(await rejection(s.append("sam", [note("b")])), "store-io")).toBe(true);
        expect(isFunctaiError(await rejection(s.read("sam")), "store-io")).toBe(true);
        expect(await newer.get("lengths", "sam")).toBe(1);
      } finally {
        newer.close();
      }
    });
  });

  describe("indexedDBStore: ids", () => {
    it("refuses a conversation id that could be a path", async () => {
      const s = h.open();
      for (const id of ["../x", "a/b", "", ".hidden", "a".repeat(201)]) {
        expect(isFunctaiError(await rejection(s.append(id, [note("a")])), "conversation-id")).toBe(true);
        expect(isFunctaiError(await rejection(s.read(id)), "conversation-id")).toBe(true);
        expect(isFunctaiError(await rejection(s.wait!(id, 0, 10)), "conversation-id")).toBe(true);
      }
      expect(await s.list!()).toEqual([]);
    });
  });
}
