/**
 * Hunt 8: ONE pool connection of a host frozen (nothing forwarded either
 * way, no FIN) while it carries a turn's append; the host's other
 * connections (its lock session, the pool's others, its listener) work.
 * The append reaches the server and commits; its answer never comes back —
 * as when the path is lost after the query was acknowledged, or a NAT or
 * load balancer forgets the flow. The pool's clients have no TCP keepalive
 * and no statement timeout, so nothing on this host ever finds out.
 *
 * The contract: README "Many hosts: PostgreSQL", Errors: "connecting gives up
 * after 10 s, never hangs, and so does waiting for a client of a pool you
 * gave"; the listener is probed for this very half-open case (`wait`), and
 * DESIGN "Many hosts" / README: a host that loses its connection in the
 * middle of a turn stops (a coded error: DESIGN "Every error a user can see
 * is a FunctaiError with a code"). We wait 15 s: longer than every timer the
 * store has (CONNECT_TIMEOUT_MS 10 s, PROBE_TIMEOUT_MS 5 s).
 */
import { describe, expect, it } from "vitest";
import { scripted } from "../../src/testing/index.js";
import { CHARGE, desk, onNet, outcome, rows, until } from "./fixtures/hunt7-net-desk.js";
import { freezeAt, within } from "./fixtures/hunt8-freeze-kit.js";
import { NO_SERVER } from "./server.js";

/** The proxied store's statements wait this long for an answer before they are given up. */
const FROZEN = { statementTimeoutMs: 3_000 };

/** A lease that runs out within the freeze (renewals cannot get through: see hunt8-freeze-renew). */
const SHORT_LEASE = { renewMs: 300, ttlMs: 1_500 };
const BOUND_MS = 15_000;

const kinds = async (schema: string, c: string): Promise<string[]> => (await rows(schema, c)).map((r) => (r.state ? `${r.kind}:${r.state}` : r.kind));

describe.skipIf(NO_SERVER !== null)("a pool connection frozen while it carries a turn's append", () => {
  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s, and nothing on the host can end it). The append goes through
  // pgDb's runOn (adapters/postgres/pg-db.ts:129-131), a client.query on a pool made at pg-db.ts:107 with neither
  // `query_timeout`/`statement_timeout` nor `keepAlive` (only the own clients of openClient, pg-db.ts:78, keep alive),
  // and neither the store (store.ts `appendOnce`) nor the journal (src/engine/journal.ts `flush`) bounds the wait.
  // A fix: give pool statements a deadline (pg's `query_timeout`, or a race as `answers` in liveness.ts) after which
  // the client is released as broken and the call fails `store-io` (outcome unknown: not sent again, as a lost
  // group's appends already are); and keepAlive on the pool's clients.
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("the charge's `started` append frozen: the send stops with a coded error in bounded time, the charge not run", async () => {
    await onNet(async (n) => {
      const here = desk();
      const lm = scripted([CHARGE, { text: "done" }]);
      const frozen = freezeAt(n, '"state":"started"');
      const sent = outcome(here.fn.conversation("a", { store: n.store, lm, lease: SHORT_LEASE }).send({ id: "a" }));
      await frozen;
      const end = await within(sent, BOUND_MS);
      expect(here.state.chargeGate.started).toBe(0);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^error [a-z-]+$/);
    }, FROZEN);
  }, 30_000);

  it.concurrent("meanwhile another host reads it running, then stalled; resume is refused, abandon ends it; thawed, the host charges nothing and writes nothing", async () => {
    await onNet(async (n) => {
      const here = desk();
      const lm = scripted([CHARGE, { text: "done" }]);
      const frozen = freezeAt(n, '"state":"started"');
      const sent = outcome(here.fn.conversation("b", { store: n.store, lm, lease: SHORT_LEASE }).send({ id: "b" }));
      const link = await frozen;
      const there = desk();
      const chat = there.fn.conversation("b", { store: n.other, lm: scripted([{ text: "done" }]), lease: SHORT_LEASE });
      await until("the started record is kept", async () => (await kinds(n.schema, "b")).includes("tool:started"));
      // the lock session still holds the turn's lock: never interrupted, only stalled once the lease ran out
      expect((await chat.turns())[0]!.state).toBe("running");
      await until("the turn reads stalled", async () => {
        const [t] = await chat.turns();
        expect(t!.state).toBe("running");
        return t!.stalled === true;
      });
      const [turn] = await chat.turns();
      expect(await outcome(turn!.resume())).toBe("error turn-state");
      expect(await outcome(turn!.abandon())).toBe("undefined");
      expect(there.state.charges).toBe(0);
      const after = await kinds(n.schema, "b");
      expect(after.at(-1)).toBe("ended:abandoned");

      link.thaw(); // the started append's answer comes: the turn is another's now
      expect(await sent).toBe("error lease-lost");
      expect(here.state.chargeGate.started).toBe(0);
      expect(lm.requests).toHaveLength(1);
      expect(await kinds(n.schema, "b")).toEqual(after);
    });
  }, 30_000);

  // Found by hunt 8, fixed (it hung with no end while the turn is `done` for everyone else: still pending after 15 s). The same cause:
  // the `ended` append's client.query (pg-db.ts:131) has no deadline. The turn's end committed; the send learns
  // nothing. A fix as above: a deadline, then `store-io` (the outcome unknown), or a read of the journal that finds
  // the `ended` record and answers from it.
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("the turn's `ended` append frozen: the send settles in bounded time", async () => {
    await onNet(async (n) => {
      const here = desk();
      here.state.open();
      const lm = scripted([CHARGE, { text: "done" }]);
      const frozen = freezeAt(n, '"kind":"ended"');
      const sent = outcome(here.fn.conversation("c", { store: n.store, lm, lease: SHORT_LEASE }).send({ id: "c" }));
      await frozen;
      const end = await within(sent, BOUND_MS);
      expect(here.state.charges).toBe(1);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(done|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  it.concurrent("the turn's `ended` append frozen: every other host reads the turn done at once; thawed, the send answers done, charged and paid once", async () => {
    await onNet(async (n) => {
      const here = desk();
      here.state.open();
      const lm = scripted([CHARGE, { text: "done" }]);
      const frozen = freezeAt(n, '"kind":"ended"');
      const sent = outcome(here.fn.conversation("d", { store: n.store, lm, lease: SHORT_LEASE }).send({ id: "d" }));
      const link = await frozen;
      const chat = desk().fn.conversation("d", { store: n.other, lm: scripted([]) });
      await until("the turn reads done", async () => (await chat.turns())[0]?.state === "done");
      const written = await kinds(n.schema, "d");
      // (renewals left out: on a loaded machine a turn outlives renewMs, and a renewal may fall between any two records)
      expect(written.filter((k, i) => k !== "lease" || i === written.indexOf("lease"))).toEqual([
        "program",
        "turn",
        "lease",
        "reply",
        "tool:started",
        "tool:done",
        "reply",
        "ended:done",
      ]);
      link.thaw();
      expect(await sent).toBe("done");
      expect(here.state.charges).toBe(1);
      expect(lm.requests).toHaveLength(2);
    });
  }, 30_000);
});
