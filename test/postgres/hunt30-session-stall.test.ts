/**
 * Hunt 30, network faults (real PostgreSQL, through hunt 7's TCP proxy): a
 * new lock session's first statements (its settings, its pid) never
 * answered, the connection made (a network that stalls right then, a hung
 * server). README "Many hosts": a lock connection's statements wait 10 s at
 * most; connecting never hangs. hunt8-freeze-lock.test.ts has the session's
 * lock statements frozen; here, the statements that open it.
 */
import { describe, expect, it } from "vitest";
import { onNet } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, outcome } from "./server.js";

describe.skipIf(NO_SERVER !== null)("a lock session whose opening statements get no answer", () => {
  // Found by hunt 30 (failed before): they were waited on without end: the turn's hold (its start, a resume, an answer)
  // never settled, nor did any other turn of the store, which all wait for the one lock session.
  it("the hold fails store-io within the session's 10 s, saying so; the next hold opens a new session and takes the lock", async () => {
    await onNet(async ({ via, store, other }) => {
      expect(await store.append("c", [{ kind: "note", at: new Date().toISOString() } as never])).toBe(1); // (the tables made)
      const stalled = via.when("tcp_keepalives_idle", (l) => l.holdReply());
      const t0 = Date.now();
      const held = outcome(store.liveness!.hold("c", "t1"));
      await stalled;
      expect(await held).toMatch(/^store-io: .*no answer/s);
      expect(Date.now() - t0).toBeLessThan(20_000);
      const release = await store.liveness!.hold("c", "t1");
      expect(await other.liveness!.isHeld("c", "t1")).toBe(true);
      release();
    });
  }, 60_000);
});
