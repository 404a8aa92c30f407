/**
 * The store contract: one suite every store passes (memory, node-fs,
 * IndexedDB in Chromium). Imports no `node:` module, so it runs in a browser.
 *
 * @example
 * ```ts
 * storeContract("memory store", async () => ({ store: memoryStore() }));
 * ```
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isFunctaiError, type ErrorCode } from "../../src/errors.js";
import type { ConversationRecord } from "../../src/records/types.js";
import type { Store } from "../../src/store/types.js";

export interface StoreUnderTest {
  store: Store;
  /** A second store on the same location (another process or tab, as far as the store can tell). */
  reopen?: () => Promise<Store>;
  cleanup?: () => Promise<void>;
}

let n = 0;
/** A record as callers give it (no `seq`). */
export const rec = (kind = "note", extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  functai_conversation: 1,
  kind,
  at: "2026-11-29T12:00:00.000Z",
  n: ++n,
  ...extra,
});

/** Resolves to the error's code when `p` rejects (or `fn` throws); fails the test when it does not. */
export async function codeOf(fn: () => Promise<unknown>): Promise<ErrorCode | string> {
  try {
    await fn();
  } catch (e) {
    return isFunctaiError(e) ? e.code : `not a FunctaiError: ${String(e)}`;
  }
  throw new Error("expected a rejection, got none");
}

/** A field of a record, known kind or not. */
export const get = (r: ConversationRecord | undefined, key: string): unknown => (r as Record<string, unknown> | undefined)?.[key];
const seqs = (records: readonly { seq: number }[]): number[] => records.map((r) => r.seq);
/** A record without the `seq` the store gave it: what the caller appended. */
const strip = (r: ConversationRecord): Record<string, unknown> => {
  const { seq: _seq, ...rest } = r as Record<string, unknown>;
  return rest;
};

/**
 * A store made fresh for each test of the describe it is called in (`t()`),
 * closed and cleaned up after it with the stores the test opened beside it
 * (`reopen()`: a second store on the same location).
 */
export function eachStore(make: () => Promise<StoreUnderTest>): { t(): StoreUnderTest; reopen(): Promise<Store> } {
  let t: StoreUnderTest;
  let extra: Store[] = [];
  beforeEach(async () => {
    t = await make();
    extra = [];
  });
  afterEach(async () => {
    for (const s of extra) await s.close?.();
    await t.store.close?.();
    await t.cleanup?.();
  });
  return {
    t: () => t,
    async reopen() {
      const s = await t.reopen!();
      extra.push(s);
      return s;
    },
  };
}

export function storeContract(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(name, () => {
    const each = eachStore(make);
    const reopen = each.reopen;
    let t: StoreUnderTest;
    beforeEach(() => {
      t = each.t();
    });

    it("appends give seq from 1 and return the new length", async () => {
      const { store } = t;
      const a = rec();
      const b = rec();
      expect(await store.append("c1", [a, b])).toBe(2);
      expect(await store.append("c1", [rec()])).toBe(3);
      const got = await store.read("c1");
      expect(seqs(got)).toEqual([1, 2, 3]);
      expect(strip(got[0]!)).toEqual(a);
      expect(strip(got[1]!)).toEqual(b);
      expect("seq" in a).toBe(false); // the caller's object is not changed
      if (store.length) expect(await store.length("c1")).toBe(3);
      expect(["memory", "disk", undefined]).toContain(store.durability);
    });

    it("the store gives seq, whatever the caller put there", async () => {
      await t.store.append("c1", [rec("note", { seq: 99 }), rec("note", { seq: 1 })]);
      expect(seqs(await t.store.read("c1"))).toEqual([1, 2]);
    });

    it("read(after) returns the tail in order", async () => {
      const { store } = t;
      const given = [rec(), rec(), rec(), rec(), rec()];
      for (const r of given) await store.append("c1", [r]);
      const tail = await store.read("c1", 2);
      expect(seqs(tail)).toEqual([3, 4, 5]);
      expect(tail.map(strip)).toEqual(given.slice(2));
      expect(await store.read("c1", 5)).toEqual([]);
      expect(await store.read("c1", 50)).toEqual([]);
      expect(seqs(await store.read("c1", 0))).toEqual([1, 2, 3, 4, 5]);
      expect(await store.read("never-written")).toEqual([]);
      if (store.length) expect(await store.length("never-written")).toBe(0);
    });

    it("a batch is all or none", async () => {
      const { store } = t;
      await store.append("c1", [rec()]);
      for (const bad of [null, 42, "text", [1, 2]]) {
        await expect(store.append("c1", [rec(), bad as unknown as object, rec()])).rejects.toBeDefined();
      }
      expect(seqs(await store.read("c1"))).toEqual([1]);
      expect(await store.append("c1", [rec(), rec()])).toBe(3);
    });

    it("an empty batch writes nothing and returns the length", async () => {
      const { store } = t;
      expect(await store.append("c1", [])).toBe(0);
      await store.append("c1", [rec()]);
      expect(await store.append("c1", [], { expect: 1 })).toBe(1);
      expect(await codeOf(() => store.append("c1", [], { expect: 0 }))).toBe("store-conflict");
      expect(seqs(await store.read("c1"))).toEqual([1]);
      if (store.list) expect(await store.list()).toEqual(["c1"]);
    });

    it("expect: a wrong length is store-conflict and writes nothing", async () => {
      const { store } = t;
      expect(await store.append("c1", [rec()], { expect: 0 })).toBe(1);
      expect(await store.append("c1", [rec()], { expect: 1 })).toBe(2);
      for (const wrong of [0, 1, 3, 100]) {
        expect(await codeOf(() => store.append("c1", [rec(), rec()], { expect: wrong }))).toBe("store-conflict");
      }
      expect(await codeOf(() => store.append("fresh", [rec()], { expect: 1 }))).toBe("store-conflict");
      expect(seqs(await store.read("c1"))).toEqual([1, 2]);
      expect(await store.read("fresh")).toEqual([]);
      if (store.list) expect(await store.list()).toEqual(["c1"]);
      expect(await store.append("c1", [rec()], { expect: 2, durable: true })).toBe(3);
    });

    it("an expect that is not a length, an after that is not a number: input-invalid, nothing written or misread", async () => {
      const { store } = t;
      await store.append("c1", [rec(), rec()]);
      // (any of these can never equal a length: a store-conflict would be a lost race no retry can win)
      for (const bad of [Number.NaN, -1, 1.5, "2", null, Number.POSITIVE_INFINITY]) {
        expect(await codeOf(() => store.append("c1", [rec()], { expect: bad as never })), `expect ${String(bad)}`).toBe("input-invalid");
      }
      // (NaN compares false with every seq: a read would give every record, a wait see none)
      for (const bad of [Number.NaN, "1", null]) {
        expect(await codeOf(() => store.read("c1", bad as never)), `read after ${String(bad)}`).toBe("input-invalid");
        if (store.wait) expect(await codeOf(() => store.wait!("c1", bad as never, 10)), `wait after ${String(bad)}`).toBe("input-invalid");
      }
      expect(seqs(await store.read("c1"))).toEqual([1, 2]);
      expect(await store.append("c1", [rec()], { expect: 2 })).toBe(3);
    });

    it("of N concurrent appends expecting the same length, exactly one wins", async () => {
      const { store } = t;
      await store.append("c1", [rec()]);
      const tries = Array.from({ length: 8 }, (_, i) => rec("claim", { who: i }));
      const results = await Promise.allSettled(tries.map((r) => store.append("c1", [r, rec()], { expect: 1 })));
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      expect((won[0] as PromiseFulfilledResult<number>).value).toBe(3);
      for (const r of results) {
        if (r.status === "rejected") expect(isFunctaiError(r.reason, "store-conflict")).toBe(true);
      }
      const got = await store.read("c1");
      expect(seqs(got)).toEqual([1, 2, 3]);
      expect(got[1]!.kind).toBe("claim");
    });

    it("concurrent appends without expect all land, each once, seqs 1..N", async () => {
      const { store } = t;
      const lengths = await Promise.all(Array.from({ length: 20 }, (_, i) => store.append("c1", [rec("x", { i })])));
      expect([...lengths].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      const got = await store.read("c1");
      expect(seqs(got)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(got.map((r) => get(r, "i")).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it("conversations are independent", async () => {
      const { store } = t;
      await store.append("a", [rec("x", { to: "a" })]);
      await store.append("b", [rec("x", { to: "b" }), rec("x", { to: "b" })]);
      await store.append("a", [rec("x", { to: "a" })], { expect: 1 });
      expect((await store.read("a")).map((r) => [r.seq, get(r, "to")])).toEqual([[1, "a"], [2, "a"]]);
      expect((await store.read("b")).map((r) => [r.seq, get(r, "to")])).toEqual([[1, "b"], [2, "b"]]);
      if (store.length) expect([await store.length("a"), await store.length("b")]).toEqual([2, 2]);
    });

    it("invalid conversation ids are refused (conversation-id), valid odd ones accepted", async () => {
      const { store } = t;
      const bad = ["../x", "", "a/b", "a\\b", "x".repeat(201), ".hidden", "-x", "é", "a b", "a\u0000"];
      for (const id of bad) {
        expect(await codeOf(() => store.append(id, [rec()])), id).toBe("conversation-id");
        expect(await codeOf(() => store.read(id)), id).toBe("conversation-id");
        if (store.length) expect(await codeOf(() => store.length!(id)), id).toBe("conversation-id");
        if (store.wait) expect(await codeOf(() => store.wait!(id, 0, 10)), id).toBe("conversation-id");
      }
      expect(await codeOf(() => store.append(42 as unknown as string, [rec()]))).toBe("conversation-id");
      for (const id of ["a", "A.b_c-1", "9", "v1..2", "x".repeat(200)]) {
        expect(await store.append(id, [rec()])).toBe(1);
        expect(seqs(await store.read(id))).toEqual([1]);
      }
      if (store.list) expect((await store.list()).sort()).toEqual(["9", "A.b_c-1", "a", "v1..2", "x".repeat(200)].sort());
    });

    it("unknown kinds and extra keys come back verbatim", async () => {
      const { store } = t;
      const odd = {
        functai_conversation: 1,
        kind: "from-the-future",
        at: "2030-01-01T00:00:00.000Z",
        nested: { list: [1, "two", null, { deep: [true, false] }], empty: {}, none: [] },
        "key with spaces": "value",
        text: 'quotes " and \\ backslash, line\nbreak, tab\t, \u2028, é, 😀, " \\n"',
        number: -1.5e-7,
        big: Number.MAX_SAFE_INTEGER,
        zero: 0,
        nil: null,
      };
      await store.append("c1", [odd, rec()]);
      const [got] = await store.read("c1");
      expect(got).toEqual({ ...odd, seq: 1 });
    });

    it("many records in one batch", async () => {
      const { store } = t;
      const batch = Array.from({ length: 1000 }, (_, i) => rec("x", { i }));
      expect(await store.append("c1", batch)).toBe(1000);
      const got = await store.read("c1", 990);
      expect(got.map((r) => [r.seq, get(r, "i")])).toEqual(Array.from({ length: 10 }, (_, k) => [991 + k, 990 + k]));
    });

    it("wait wakes on an append, and times out false", async () => {
      const { store } = t;
      if (!store.wait) return;
      expect(await store.wait("c1", 0, 30)).toBe(false);
      await store.append("c1", [rec()]);
      expect(await store.wait("c1", 0, 10_000)).toBe(true); // already longer: at once
      const t0 = Date.now();
      const waiting = store.wait("c1", 1, 10_000);
      setTimeout(() => void store.append("c1", [rec()]), 50);
      expect(await waiting).toBe(true);
      expect(Date.now() - t0).toBeLessThan(5_000);
      const t1 = Date.now();
      expect(await store.wait("c1", 2, 120)).toBe(false);
      expect(Date.now() - t1).toBeGreaterThanOrEqual(100);
    });

    it("wait longer than a timer can hold (or for ever) waits, and wakes on an append; a timeout that is no time looks once", async () => {
      const { store } = t;
      if (!store.wait) return;
      for (const [i, timeout] of [2 ** 31, 30 * 86_400_000, Number.POSITIVE_INFINITY].entries()) {
        let settled: boolean | undefined;
        const waiting = store.wait("c1", i, timeout).then((v) => (settled = v));
        await new Promise((r) => setTimeout(r, 150)); // setTimeout past 2^31 - 1 ms fires at once: the wait must not end here
        expect(settled, `timeout ${timeout}`).toBeUndefined();
        await store.append("c1", [rec()]);
        expect(await waiting).toBe(true);
      }
      for (const timeout of [Number.NaN, -5]) {
        const t0 = Date.now();
        expect(await store.wait("c1", 3, timeout), `timeout ${timeout}`).toBe(false);
        expect(Date.now() - t0).toBeLessThan(5_000);
      }
    });

    it("wait for more than one record waits until there are enough", async () => {
      const { store } = t;
      if (!store.wait) return;
      const waiting = store.wait("c1", 2, 10_000);
      let woke = false;
      void waiting.then(() => (woke = true));
      await store.append("c1", [rec()]);
      await store.append("c1", [rec()]);
      await new Promise((r) => setTimeout(r, 100));
      expect(woke).toBe(false);
      await store.append("c1", [rec()]);
      expect(await waiting).toBe(true);
    });

    it("list names the conversations written to", async () => {
      const { store } = t;
      if (!store.list) return;
      expect(await store.list()).toEqual([]);
      await store.read("only-read");
      await store.append("b", [rec()]);
      await store.append("a", [rec()]);
      expect((await store.list()).sort()).toEqual(["a", "b"]);
    });

    it("lengths gives each conversation list names, with its length", async () => {
      const { store } = t;
      if (!store.lengths) return;
      expect(await store.lengths()).toEqual(new Map());
      await store.read("only-read");
      if (store.wait) await store.wait("only-waited", 0, 1); // (a database notes a waiter: still no conversation)
      await store.append("b", [rec(), rec()]);
      await store.append("a", [rec()]);
      await store.append("b", [rec()]);
      expect(await store.lengths()).toEqual(
        new Map([
          ["a", 1],
          ["b", 3],
        ]),
      );
      if (store.list) expect([...(await store.lengths()).keys()].sort()).toEqual((await store.list()).sort());
    });

    it("records survive a reopen; a second instance sees and conflicts like another process", async () => {
      if (!t.reopen) return;
      const first = t.store;
      await first.append("c1", [rec(), rec()], { expect: 0 });
      const second = await reopen();
      expect(seqs(await second.read("c1"))).toEqual([1, 2]);
      // The second instance appends; the first's idea of the length is now stale.
      expect(await second.append("c1", [rec("x", { by: "second" })], { expect: 2 })).toBe(3);
      expect(await codeOf(() => first.append("c1", [rec()], { expect: 2 }))).toBe("store-conflict");
      expect(await first.append("c1", [rec("x", { by: "first" })], { expect: 3 })).toBe(4);
      expect(await codeOf(() => second.append("c1", [rec()], { expect: 3 }))).toBe("store-conflict");
      const fromFirst = await first.read("c1");
      expect(seqs(fromFirst)).toEqual([1, 2, 3, 4]);
      expect(fromFirst.slice(2).map((r) => get(r, "by"))).toEqual(["second", "first"]);
      expect(await second.read("c1")).toEqual(fromFirst);
      if (first.length) expect(await first.length("c1")).toBe(4);
      if (second.list) expect(await second.list()).toEqual(["c1"]);
    });

    it("wait wakes on another instance's append", async () => {
      if (!t.reopen || !t.store.wait) return;
      const second = await reopen();
      const waiting = t.store.wait("c1", 0, 10_000);
      setTimeout(() => void second.append("c1", [rec()]), 50);
      expect(await waiting).toBe(true);
    });

    it("concurrent appends from two instances expecting the same length: one wins", async () => {
      if (!t.reopen) return;
      const second = await reopen();
      for (let round = 0; round < 10; round++) {
        const results = await Promise.allSettled([
          t.store.append("c1", [rec("x", { by: 1, round })], { expect: round }),
          second.append("c1", [rec("x", { by: 2, round })], { expect: round }),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      }
      expect(seqs(await second.read("c1"))).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    });
  });
}
