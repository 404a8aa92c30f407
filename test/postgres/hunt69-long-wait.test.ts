/**
 * A finite `wait` timeout longer than a timer holds (2^31−1 ms) ends, on a
 * real PostgreSQL server: wake.ts set no timer past that (taken for "no
 * timeout"), and such a wait never ended without an append. Fake timers
 * (setTimeout and the monotonic clock only) stand in for the weeks; the
 * statements are real.
 */
import { describe, expect, it, vi } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const LONG = 2 ** 31 + 5_000;
const realTimeout = globalThis.setTimeout;
const sleep = (ms: number): Promise<void> => new Promise((r) => realTimeout(r, ms));

/** How `p` stands after `ms` of real time: its value, or "pending". */
async function standing(p: Promise<unknown>, ms: number): Promise<unknown> {
  let got: unknown = "pending";
  void p.then(
    (v) => (got = v),
    (e: unknown) => (got = `refused ${(e as { code?: unknown }).code}`),
  );
  await sleep(ms);
  return got;
}

describe.skipIf(NO_SERVER !== null)("on a real PostgreSQL server", () => {
  it("a wait with a timeout past 2^31−1 ms times out", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL ?? "" }, { schema });
    try {
      await store.append("c", [rec()]);
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
      const waited = store.wait!("c", 1, LONG);
      // generous: listening and the waiter's row take a few statements on a loaded machine
      expect(await standing(waited, 2_000)).toBe("pending");
      await vi.advanceTimersByTimeAsync(2 ** 31 - 1); // a timer's longest: the first part ends
      expect(await standing(waited, 500), "ended before its timeout").toBe("pending");
      await vi.advanceTimersByTimeAsync(10_000); // past the timeout: its last look reads the length
      vi.useRealTimers();
      expect(await standing(waited, 10_000), "a finite timeout past 2^31−1 ms never ended").toBe(false);
    } finally {
      vi.useRealTimers();
      await store.close();
      await dropSchema(schema);
    }
  });
});
