// fake-indexeddb in Node: an append whose transaction the browser aborts (quota exceeded, or aborted from outside) part way.
import "fake-indexeddb/auto";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { freshName, note, textOf } from "./indexeddb-cases.js";

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

/** Makes the browser abort the next append's transaction as it writes the length, with `errName` as the transaction's error. */
function abortOnLengthWrite(errName: string | null): void {
  const put = IDBObjectStore.prototype.put;
  vi.spyOn(IDBObjectStore.prototype, "put").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore["put"]>) {
    const request = put.apply(this, args);
    if (this.name === "lengths") {
      vi.restoreAllMocks();
      // fake-indexeddb's own abort steps, as the browser runs them when the origin's quota is exceeded
      (this.transaction as unknown as { _abort(name: string | null): void })._abort(errName);
    }
    return request;
  });
}

describe("indexedDBStore: an append whose transaction is aborted", () => {
  const names: string[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  it("quota exceeded: store-io says so (not only 'aborted'), nothing of the batch is written, the next append starts where it was", async () => {
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name);
    expect(await s.append("sam", [note("kept")])).toBe(1);
    abortOnLengthWrite("QuotaExceededError");
    const e = await rejection(s.append("sam", [note("a"), note("b"), note("c")], { expect: 1 }));
    expect(isFunctaiError(e, "store-io")).toBe(true);
    expect((e as Error).message).toMatch(/QuotaExceededError/);
    expect(await s.length!("sam")).toBe(1);
    expect((await s.read("sam")).map(textOf)).toEqual(["kept"]);
    expect(await s.append("sam", [note("next")], { expect: 1 })).toBe(2);
    expect((await s.read("sam")).map((r) => [r.seq, textOf(r)])).toEqual([[1, "kept"], [2, "next"]]);
    await s.close!();
  });

  it("aborted without a reason: store-io, nothing written, and no other handle is woken", async () => {
    const name = freshName();
    names.push(name);
    const [a, b] = [indexedDBStore(name), indexedDBStore(name)];
    const waiting = b.wait!("sam", 0, 300);
    await new Promise((r) => setTimeout(r, 20));
    abortOnLengthWrite(null);
    expect(isFunctaiError(await rejection(a.append("sam", [note("a"), note("b")])), "store-io")).toBe(true);
    expect(await waiting).toBe(false);
    expect(await b.read("sam")).toEqual([]);
    expect(await b.list!()).toEqual([]);
    await Promise.all([a.close!(), b.close!()]);
  });
});
