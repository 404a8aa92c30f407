/**
 * A finite `wait` timeout longer than a timer holds (2^31−1 ms, about 24.8
 * days) ends, as any finite timeout does. The memory and IndexedDB stores
 * set no timer past that (taken for "no timeout"): such a wait never ended
 * without an append. Fake timers stand in for the weeks (setTimeout and the
 * monotonic clock only: the stores' I/O is real).
 */
import "fake-indexeddb/auto";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { memoryStore } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { rec } from "./contract.js";
import { freshName } from "./indexeddb-cases.js";

const LONG = 2 ** 31 + 5_000; // past a timer's reach (Node fires such a timer after 1 ms, with a warning)

afterEach(() => {
  vi.useRealTimers();
});

/** How `p` stands once the event loop turned a few times (real I/O, no timers): its value, or "pending". */
async function standing(p: Promise<unknown>): Promise<unknown> {
  let got: unknown = "pending";
  void p.then((v) => (got = v));
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
  return got;
}

async function longWaitEnds(store: Store): Promise<void> {
  await store.append("c", [rec()]);
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
  const waited = store.wait!("c", 1, LONG);
  await vi.advanceTimersByTimeAsync(10_000);
  expect(await standing(waited), "ended long before its timeout").toBe("pending");
  await vi.advanceTimersByTimeAsync(2 ** 31 - 1 - 10_000); // a timer's longest: the first part ends
  expect(await standing(waited), "ended before its timeout").toBe("pending");
  await vi.advanceTimersByTimeAsync(10_000); // past the timeout
  expect(await standing(waited), "a finite timeout past 2^31−1 ms never ended").toBe(false);
  vi.useRealTimers();
  // an Infinity timeout still waits for an append
  const forever = store.wait!("c", 1, Number.POSITIVE_INFINITY);
  expect(await standing(forever)).toBe("pending");
  await store.append("c", [rec()]);
  expect(await forever).toBe(true);
}

describe("a wait with a timeout past 2^31−1 ms times out", () => {
  it("memory store", async () => {
    const store = memoryStore();
    await longWaitEnds(store);
    await store.close!();
  });

  it("indexedDBStore (fake-indexeddb)", async () => {
    const name = freshName();
    const store = indexedDBStore(name);
    try {
      await longWaitEnds(store);
    } finally {
      vi.useRealTimers();
      await store.close!();
      await deleteDB(name);
    }
  });
});
