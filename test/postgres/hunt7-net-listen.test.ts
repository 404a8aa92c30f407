/**
 * Hunt 7, network faults (real PostgreSQL, through a TCP proxy): the store's
 * LISTEN connection cut. DESIGN "Many hosts": `wait` listens on one
 * connection per store (LISTEN, then re-read, then wait: no lost wake-ups;
 * re-read after a reconnect, since notifications are not kept); Store.wait
 * (src/store/types.ts, DESIGN "Stores"): true once the conversation holds
 * more than `after` records. wait-server-down.test.ts has the whole server
 * going away; here only the listening connection goes, the pool stays.
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { onNet, until } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, admin, settle } from "./server.js";

const LISTEN = "LISTEN ";

describe.skipIf(NO_SERVER !== null)("the LISTEN connection cut, the pool's connections not", () => {
  it("reset under a wait, and another host appends at once (while it reconnects): the wait wakes", async () => {
    await onNet(async ({ via, store, other }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("c", 0, 1_000)).toBe(true); // listening now
      const waiting = settle(store.wait!("c", 1, 15_000));
      const [listener] = via.sentBy(LISTEN);
      listener!.cut();
      expect(await other.append("c", [rec()])).toBe(2);
      const { got, ms } = await waiting;
      expect(got).toBe(true);
      expect(ms).toBeLessThan(10_000);
      await until("the listener is back", () => via.sentBy(LISTEN).length === 2);
    });
  });

  it("reset, and its first two reconnections reset at their LISTEN: a wait under way wakes for an append made after, and a later wait wakes by notification", async () => {
    await onNet(async ({ via, store, other }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("c", 0, 1_000)).toBe(true);
      const waiting = settle(store.wait!("c", 1, 20_000));
      const again = [via.when(LISTEN, (l) => l.cutReply()), via.when(LISTEN, (l) => l.cutReply())];
      via.sentBy(LISTEN)[0]!.cut();
      await Promise.all(again);
      await until("a third listening connection", () => via.sentBy(LISTEN).length === 3 && via.sentBy(LISTEN)[2]!.closed === false);
      expect(await other.append("c", [rec()])).toBe(2);
      expect((await waiting).got).toBe(true);
      // listening again: a wait made now wakes on the notification of a later append
      const later = settle(store.wait!("c", 2, 15_000));
      await new Promise((r) => setTimeout(r, 200));
      expect(await other.append("c", [rec()])).toBe(3);
      const { got, ms } = await later;
      expect(got).toBe(true);
      expect(ms).toBeLessThan(5_000);
    });
  });

  // Found by hunt 7 (failed before): the server ended the LISTEN backend while the network dropped what it sent (a
  // partition, the server's keepalive giving up, a NAT or load balancer forgetting the flow): the host's end looked
  // open and nothing was written on it, so it never heard it was gone, and every wait of the store ended false at its
  // timeout though the conversation grew (DESIGN "Many hosts": no lost wake-ups). The listener (pg-listener.ts) now
  // asks its connection `SELECT 1` every LISTENER_PROBE_MS: a forgotten connection answers with a reset, the listener
  // reconnects and its owner re-reads.
  it("ended by the server while the network kept the host from hearing it (half-open): a later wait still wakes on another host's append", async () => {
    await onNet(async ({ app, via, store, other }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("c", 0, 1_000)).toBe(true);
      const [listener] = via.sentBy(LISTEN);
      listener!.freeze();
      const [row] = await admin<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'", [app]);
      expect(await admin("SELECT pg_terminate_backend($1) AS ok", [row!.pid])).toEqual([{ ok: true }]);
      await until("the server side is gone", () => listener!.serverGone);
      listener!.thaw(); // the network is back; the host's end of the connection was never told
      const waiting = settle(store.wait!("c", 1, 12_000)); // (found within one probe, LISTENER_PROBE_MS, and its reconnection)
      await new Promise((r) => setTimeout(r, 300));
      expect(await other.append("c", [rec()])).toBe(2);
      expect((await waiting).got).toBe(true);
    });
  });
});
