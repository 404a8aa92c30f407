// fake-indexeddb in Node: what indexedDBStore is given (its name, its options) and an environment without IndexedDB.
import "fake-indexeddb/auto";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { freshName, note } from "./indexeddb-cases.js";
import { errorOf as thrown } from "../fixtures/refused.js";

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

afterEach(() => vi.unstubAllGlobals());

describe("indexedDBStore: where there is no IndexedDB", () => {
  it("every operation is refused with store-io naming IndexedDB, not a TypeError about 'open' or 'bound'", async () => {
    vi.stubGlobal("indexedDB", undefined);
    vi.stubGlobal("IDBKeyRange", undefined);
    const s = indexedDBStore(freshName());
    for (const op of [s.append("sam", [note("a")]), s.read("sam"), s.read("sam", 2), s.length!("sam"), s.list!(), s.wait!("sam", 0, 50)]) {
      const e = await rejection(op);
      expect(isFunctaiError(e, "store-io")).toBe(true);
      expect((e as Error).message).toMatch(/no IndexedDB/);
      expect((e as Error).message).not.toMatch(/Cannot read properties/);
    }
    await s.close!();
  });
});

describe("indexedDBStore: its name and options", () => {
  it("a name that is not a string is refused (input-invalid), not turned into another database's name", () => {
    for (const bad of [42, {}, null, ["desk"], Symbol("desk")]) {
      const e = thrown(() => indexedDBStore(bad as unknown as string));
      expect(isFunctaiError(e, "input-invalid")).toBe(true);
      expect((e as Error).message).toMatch(/database name is a string/);
    }
  });

  it("a pollMs that is not a positive number of milliseconds is refused (input-invalid), not a busy poll", async () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "5"]) {
      const e = thrown(() => indexedDBStore(freshName(), { pollMs: bad as unknown as number }));
      expect(isFunctaiError(e, "input-invalid")).toBe(true);
      expect((e as Error).message).toMatch(/pollMs/);
    }
    const s = indexedDBStore(freshName(), { pollMs: 0.5 }); // a fraction is a number of milliseconds
    expect(s.durability).toBe("disk");
    await s.close!();
  });

  it("odd names are databases of their own: empty, ':', '/', unicode, very long", async () => {
    const names = ["", ":", "a/b", "a:b", "日本語🎉", "x".repeat(3000)];
    const stores = names.map((n) => indexedDBStore(n));
    try {
      for (const [i, s] of stores.entries()) expect(await s.append("sam", [note(`in ${i}`)], { expect: 0 })).toBe(1);
      for (const [i, s] of stores.entries()) expect((await s.read("sam")).map((r) => (r as { text?: unknown }).text)).toEqual([`in ${i}`]);
    } finally {
      await Promise.all(stores.map((s) => s.close!()));
      await Promise.all(names.map((n) => deleteDB(n)));
    }
  });
});
