/**
 * Hunt 8: the lock session's connection frozen (no answer, no FIN: the
 * network froze it, or the server forgot it) while the pool's connections
 * work. The server still holds the session and its locks, so the turns it
 * holds are alive and their fenced appends (checked on the server, through
 * the pool) go on. README "Many hosts: PostgreSQL", Liveness: a write that
 * took longer than 250 ms makes the host ask the lock connection
 * (`SELECT 1`) before the tool runs; Errors: "never hangs"; `close` lets
 * the calls under way settle, then ends the connections. We wait 15 s.
 */
import { describe, expect, it } from "vitest";
import { scripted } from "../../src/testing/index.js";
import { CHARGE, LONG_LEASE, PAUSE, desk, onNet, outcome, rows, until } from "./fixtures/hunt7-net-desk.js";
import { lockLink, within } from "./fixtures/hunt8-freeze-kit.js";
import { NO_SERVER } from "./server.js";

/** The proxied store's statements wait this long for an answer before they are given up. */
const FROZEN = { statementTimeoutMs: 3_000 };

const BOUND_MS = 15_000;

describe.skipIf(NO_SERVER !== null)("the lock session frozen while the pool works", () => {
  it.concurrent("a running turn's fenced appends go on, a slow started append among them: the turn finishes in bounded time, charging and paying once", async () => {
    await onNet(async (n) => {
      const here = desk();
      const lm = scripted([PAUSE, CHARGE, { text: "done" }]);
      const sent = outcome(here.fn.conversation("a", { store: n.store, lm, lease: LONG_LEASE }).send({ id: "a" }));
      await until("the turn waits in pause", () => here.state.paused === 1);
      const lock = lockLink(n);
      lock.freeze();
      // the started append's answer held 600 ms: a slow write (over SLOW_WRITE_MS), so confirm asks the lock session
      const held = n.via.when('"state":"started"', (l) => {
        l.holdReply();
        setTimeout(() => l.thaw(), 600);
      });
      here.state.open();
      await held;
      const end = await within(sent, BOUND_MS);
      // (a probe of the frozen session, when made, is given up after PROBE_TIMEOUT_MS, 5 s, and the lock taken again
      // on a new session; seen under load, not alone: see the report)
      expect(end.got).toBe("done");
      expect(here.state.charges).toBe(1);
      expect(lm.requests).toHaveLength(3);
      const r = await rows(n.schema, "a");
      expect(r.filter((x) => x.kind === "tool").map((x) => x.state)).toEqual(["done", "started", "done"]);
    });
  }, 30_000);

  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s, and nothing is written: no other host can see the turn, so no
  // person can abandon it). A new turn takes its lock on the store's one lock session (liveness.ts `#tryLock`,
  // :189 -> the grouped statement at :61, a query on the session, pg-db.ts:217) with no deadline; the session is
  // only ever asked `SELECT 1` after a slow write (liveness.ts `answers`, PROBE_TIMEOUT_MS), never before a take.
  // A fix: race lock statements against PROBE_TIMEOUT_MS as `answers` does; one that does not answer drops the
  // session (liveness.ts `#drop`) and the take fails store-io or goes on a new session.
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("a new turn sent while the lock session is frozen settles in bounded time", async () => {
    await onNet(async (n) => {
      const here = desk();
      here.state.open();
      // a first turn opens the lock session, and ends
      expect(await here.fn.conversation("b1", { store: n.store, lm: scripted([{ text: "done" }]) }).send({ id: "b1" })).toBe("done");
      lockLink(n).freeze();
      const sent = outcome(here.fn.conversation("b2", { store: n.store, lm: scripted([{ text: "done" }]) }).send({ id: "b2" }));
      const end = await within(sent, BOUND_MS);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(done|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s). The turn ended while the session was frozen: its unlock
  // (liveness.ts:249) never answers, and AdvisoryLiveness.close awaits every unlock under way (liveness.ts:334)
  // with no deadline, so store.close() (store.ts, `advisory?.close()`) never settles: a process that awaits it
  // before it exits never exits. A fix: close bounds its wait for unlocks (ending the session frees its locks
  // anyway: `#drop` at once instead of waiting).
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("a turn that ended while the lock session is frozen: store.close() settles in bounded time", async () => {
    await onNet(async (n) => {
      const here = desk();
      const sent = outcome(here.fn.conversation("c", { store: n.store, lm: scripted([PAUSE, { text: "done" }]), lease: LONG_LEASE }).send({ id: "c" }));
      await until("the turn waits in pause", () => here.state.paused === 1);
      lockLink(n).freeze();
      here.state.open();
      expect(await sent).toBe("done");
      const end = await within(n.store.close(), BOUND_MS);
      expect(end.got, `waited ${end.ms} ms`).toBe("undefined");
    }, FROZEN);
  }, 30_000);
});
