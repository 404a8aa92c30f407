/**
 * Hunt 8: ONE pool connection frozen (no answer, no FIN) while it carries a
 * turn's lease renewal, or the background keep of a model reply, while a
 * reading tool runs; the host's other connections work. Contract as in
 * hunt8-freeze-append.test.ts (README "Many hosts: PostgreSQL", Errors:
 * "never hangs"; DESIGN "Every error a user can see is a FunctaiError with a
 * code"). We wait 15 s, longer than every timer the store has.
 */
import { describe, expect, it } from "vitest";
import { scripted } from "../../src/testing/index.js";
import { CHARGE, PAUSE, desk, onNet, outcome, until } from "./fixtures/hunt7-net-desk.js";
import { freezeAt, within } from "./fixtures/hunt8-freeze-kit.js";
import type { Net } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER } from "./server.js";

/** The proxied store's statements wait this long for an answer before they are given up. */
const FROZEN = { statementTimeoutMs: 3_000 };

const SHORT_LEASE = { renewMs: 300, ttlMs: 1_500 };
const BOUND_MS = 15_000;

/** Starts a turn that waits in `pause`, then freezes the connection of its next chunk holding `text`, then lets the pause return. */
async function frozenInPause(n: Net, id: string, text: string, script: object[]) {
  const here = desk();
  const lm = scripted(script as never);
  const sent = outcome(here.fn.conversation(id, { store: n.store, lm, lease: SHORT_LEASE }).send({ id }));
  await until("the turn waits in pause", () => here.state.paused === 1);
  const link = await freezeAt(n, text);
  here.state.open();
  return { here, lm, sent, link };
}

describe.skipIf(NO_SERVER !== null)("a pool connection frozen while it carries a renewal or a reply", () => {
  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s). The renewal's append (src/conversation/lease.ts:190, through
  // the turn's journal) never settles: its client.query (adapters/postgres/pg-db.ts:131) has no deadline and the pool's
  // clients no keepalive (pg-db.ts:107). Every later write of the turn queues behind it, so the pause's result is never
  // kept and the next model request (src/engine/journal.ts `paying`) waits for ever; `#renewing` stays set, so no
  // renewal is tried again and the lease's own failure path (`#lose`) is never reached. A fix: a deadline on pool
  // statements, then `store-io` (a renewal that fails stops the turn: lease.ts `#lose`).
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("a lease renewal frozen: the turn goes on or stops with a coded error in bounded time", async () => {
    await onNet(async (n) => {
      const { sent } = await frozenInPause(n, "r", '"kind":"lease"', [PAUSE, CHARGE, { text: "done" }]);
      const end = await within(sent, BOUND_MS);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(done|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  it.concurrent("a lease renewal frozen: another host reads the turn running (stalled once the lease ran out), never interrupted; thawed, the turn finishes, charging and paying once", async () => {
    await onNet(async (n) => {
      const { here, lm, sent, link } = await frozenInPause(n, "s", '"kind":"lease"', [PAUSE, CHARGE, { text: "done" }]);
      const chat = desk().fn.conversation("s", { store: n.other, lm: scripted([]) });
      await until("the turn reads stalled", async () => {
        const [t] = await chat.turns();
        expect(t!.state).toBe("running");
        return t!.stalled === true;
      });
      expect(here.state.chargeGate.started).toBe(0);
      link.thaw();
      expect(await sent).toBe("done");
      expect(here.state.charges).toBe(1);
      expect(lm.requests).toHaveLength(3);
    });
  }, 30_000);

  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s). The reply of the first request is kept in the background while
  // the reading tool runs (journal.ts KEEP_REPLY_WITHIN_MS); its append is frozen, and the next paid request waits for
  // it (journal.ts `paying` / `keepBeforePaying`) with no deadline: the same cause, pg-db.ts:131. Fix as above.
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("a model reply's append frozen: the turn goes on or stops with a coded error in bounded time", async () => {
    await onNet(async (n) => {
      const { lm, sent } = await frozenInPause(n, "p", '"kind":"reply"', [PAUSE, { text: "done" }]);
      const end = await within(sent, BOUND_MS);
      expect(lm.requests).toHaveLength(1);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(done|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  it.concurrent("a model reply's append frozen: no request goes out before it is kept; thawed, the turn finishes, paying each reply once", async () => {
    await onNet(async (n) => {
      const { lm, sent, link } = await frozenInPause(n, "q", '"kind":"reply"', [PAUSE, { text: "done" }]);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(lm.requests).toHaveLength(1); // DESIGN "Durability": a reply that arrived is kept before the next request
      link.thaw();
      expect(await sent).toBe("done");
      expect(lm.requests).toHaveLength(2);
    });
  }, 30_000);
});
