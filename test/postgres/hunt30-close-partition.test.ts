/**
 * Hunt 30, network faults (real PostgreSQL, through hunt 7's TCP proxy):
 * `close()` while the network to the server is partitioned (nothing comes
 * back, no reset: a cable pulled, a NAT that forgot the flows). README
 * "Many hosts": never hangs. A host shutting down (a deploy, SIGTERM) closes
 * its store last: a close that waited for the server's goodbye held the
 * process until the operating system's TCP keepalive (two hours).
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { onNet } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, settle } from "./server.js";

describe.skipIf(NO_SERVER !== null)("close() on a partitioned network", () => {
  // Found by hunt 30 (failed before): close waited for the server to answer the end of each connection (the pool's,
  // the listener's, the lock session's), which a partitioned network never brings.
  it("a store that listened, held a turn's lock and appended: close settles within seconds, and a wait under way answers false", async () => {
    await onNet(async ({ via, store }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("c", 0, 1_000)).toBe(true); // listening
      const release = await store.liveness!.hold("c", "t");
      const waiting = settle(store.wait!("c", 1, 60_000));
      await new Promise((r) => setTimeout(r, 300));
      via.partition();
      release();
      const closed = await settle(store.close());
      expect(closed.got).toBeUndefined();
      expect(closed.ms).toBeLessThan(6_000);
      expect((await waiting).got).toBe(false);
    });
  }, 60_000);
});
