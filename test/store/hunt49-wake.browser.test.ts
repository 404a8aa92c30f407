// Real Chromium: what wakes an IndexedDB `wait`. Every script of the origin can post on the store's
// BroadcastChannel (`functai-store:<name>`): another program, an older build, a hand in DevTools. A notice only
// makes the waiter read the length; the wait answers `true` only for a length read from the database (as the
// PostgreSQL store answers only for a length read from its tables). Before the fix a notice saying
// `{ conversation, length: 99 }` ended the wait `true` at once while the conversation had not grown.
import { afterEach, describe, expect, it } from "vitest";
import { deleteDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import type { Store } from "../../src/store/types.js";
import { freshName, note } from "./indexeddb-cases.js";

describe("indexedDBStore: a wait answers true only for a length the database holds", () => {
  const names: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close?.()));
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  it("a notice that no append made (another script of the origin) does not end the wait true", async () => {
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name);
    stores.push(s);
    expect(await s.append("sam", [note("one")])).toBe(1);
    const started = performance.now();
    const waiting = s.wait!("sam", 1, 1_500);
    await new Promise((r) => setTimeout(r, 100));
    const stranger = new BroadcastChannel(`functai-store:${name}`);
    stranger.postMessage({ conversation: "sam", length: 99 });
    stranger.postMessage({ conversation: "sam", length: 2 });
    expect(await waiting).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400); // (it waited its time out)
    stranger.close();
    expect(await s.length!("sam")).toBe(1);
  });

  it("an append through another handle still wakes the wait at once, and one through its own handle too", async () => {
    const name = freshName();
    names.push(name);
    const [s, other] = [indexedDBStore(name), indexedDBStore(name)];
    stores.push(s, other);
    expect(await s.append("sam", [note("one")])).toBe(1);
    // a stranger's notice first: the wait goes on, and still wakes on the real append that follows
    const waiting = s.wait!("sam", 1, 20_000);
    const stranger = new BroadcastChannel(`functai-store:${name}`);
    stranger.postMessage({ conversation: "sam", length: 5 });
    await new Promise((r) => setTimeout(r, 200));
    const started = performance.now();
    expect(await other.append("sam", [note("two")])).toBe(2);
    expect(await waiting).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000); // (the notice, not the 2 s look)
    stranger.close();
    const own = s.wait!("sam", 2, 20_000);
    const at = performance.now();
    expect(await s.append("sam", [note("three")])).toBe(3);
    expect(await own).toBe(true);
    expect(performance.now() - at).toBeLessThan(1_000);
  });
});
