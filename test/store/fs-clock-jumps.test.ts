/**
 * The fs store when the wall clock jumps (NTP, a person, a laptop waking):
 * its waits are measured on a monotonic clock, so a clock set back never
 * stretches them (a wait or a lock wait that should end in 300 ms is not
 * kept an hour), and a clock set forward never cuts them short.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { acquire } from "../../adapters/node-fs/lock.js";
import { isFunctaiError } from "../../src/errors.js";
import { rec } from "./contract.js";

let dir: string;
let offset = 0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-clock-"));
  offset = 0;
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const HOUR = 3_600_000;

/** Settles within `ms`, or says it did not. */
const within = async <T>(p: Promise<T>, ms: number): Promise<T | "pending"> =>
  Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), ms))]);

describe("fsStore: the wall clock jumps", () => {
  it("wait: a clock set back an hour still answers false at its timeout, not an hour later", async () => {
    const store = fsStore(dir);
    const started = performance.now();
    const waiting = store.wait!("sam", 0, 300);
    offset = -HOUR;
    expect(await within(waiting, 5_000)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    await store.close!();
  });

  it("wait: a clock set forward an hour does not end it early; an append within its timeout wakes it", async () => {
    const store = fsStore(dir);
    const other = fsStore(dir); // another handle: its append is seen by polling, as another process's
    const waiting = store.wait!("sam", 0, 2_000);
    offset = HOUR;
    await new Promise((r) => setTimeout(r, 200));
    await other.append("sam", [rec("a")]);
    expect(await within(waiting, 5_000)).toBe(true);
    await store.close!();
    await other.close!();
  });

  it("a lock wait: a clock set back an hour still gives up after lockTimeoutMs (store-io), not an hour later", async () => {
    const path = join(dir, "sam.jsonl.lock");
    const release = await acquire(path, { staleMs: 5_000, timeoutMs: 1_000 }); // held by a live holder: this process
    try {
      const started = performance.now();
      const waiting = acquire(path, { staleMs: 5_000, timeoutMs: 300 }).then(
        (r) => {
          r();
          return "acquired";
        },
        (e: unknown) => e,
      );
      offset = -HOUR;
      const got = await within(waiting, 5_000);
      expect(isFunctaiError(got, "store-io")).toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      release();
    }
  });

  it("a lock wait: a clock set forward an hour does not give up early; the lock let go within lockTimeoutMs is taken", async () => {
    const path = join(dir, "sam.jsonl.lock");
    const release = await acquire(path, { staleMs: 60_000, timeoutMs: 1_000 });
    const waiting = acquire(path, { staleMs: 60_000, timeoutMs: 3_000 }).then(
      (r) => {
        r();
        return "acquired";
      },
      (e: unknown) => e,
    );
    offset = HOUR;
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect(await within(waiting, 5_000)).toBe("acquired");
  });
});
