/**
 * Hunt 8: ONE pool connection frozen (no answer, no FIN) while it carries a
 * read: `turns()`, a resume's read, `list()`, or a `wait`'s watch
 * statement; the store's other connections work. Contract as in
 * hunt8-freeze-append.test.ts (README "Many hosts: PostgreSQL", Errors:
 * "never hangs"; `wait` "re-reads after that connection comes back", its
 * listener probed for this half-open case). We wait 15 s.
 */
import { describe, expect, it } from "vitest";
import { scripted } from "../../src/testing/index.js";
import { CHARGE, desk, onNet, outcome } from "./fixtures/hunt7-net-desk.js";
import type { Net } from "./fixtures/hunt7-net-desk.js";
import { freezeAt, within } from "./fixtures/hunt8-freeze-kit.js";
import { NO_SERVER } from "./server.js";

/** The proxied store's statements wait this long for an answer before they are given up. */
const FROZEN = { statementTimeoutMs: 3_000 };

const BOUND_MS = 15_000;
/** A read's prepared statement names (store.ts `names.read`, `names.readMany`). */
const READ = "functai.read";

/** A conversation `id` with one done turn, sent through `n.store`. */
async function oneTurn(n: Net, id: string) {
  const here = desk();
  const chat = here.fn.conversation(id, { store: n.store, lm: scripted([{ text: "done" }]) });
  expect(await chat.send({ id })).toBe("done");
  return chat;
}

describe.skipIf(NO_SERVER !== null)("a pool connection frozen while it carries a read", () => {
  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s). The read's client.query (adapters/postgres/pg-db.ts:131) on a
  // pool with no statement deadline and no keepalive (pg-db.ts:107); store.ts `page` / `pages` add none. A fix: a
  // deadline on pool statements, then `store-io` (a read is safe to send again on another client).
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("turns() whose read is frozen settles in bounded time", async () => {
    await onNet(async (n) => {
      const chat = await oneTurn(n, "t");
      const frozen = freezeAt(n, READ);
      const read = chat.turns().then((ts) => ts.map((t) => t.state).join(","));
      await frozen;
      const end = await within(read, BOUND_MS);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(done|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s; the turn stays `waiting`, nothing written). The same cause as
  // turns(): the resume's read of the conversation (pg-db.ts:131) has no deadline. Fix as above.
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("a resume (an approval) whose read is frozen settles in bounded time", async () => {
    await onNet(async (n) => {
      const here = desk();
      const chat = here.fn.conversation("w", { store: n.store, lm: scripted([CHARGE, { text: "done" }]), approve: "changes" });
      expect(await outcome(chat.send({ id: "w" }))).toBe("error turn-waiting");
      const [turn] = await chat.turns();
      expect(turn!.state).toBe("waiting");
      const frozen = freezeAt(n, READ);
      const resumed = outcome(turn!.approve({ by: "maria" }));
      await frozen;
      const end = await within(resumed, BOUND_MS);
      expect(here.state.charges).toBe(0);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(done|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  // Found by hunt 8, fixed (it hung with no end: still pending after 15 s). list()'s page query (store.ts `list`, through pg-db.ts:131)
  // has no deadline. Fix as above.
  // Now every statement has a deadline (pg-db.ts, statementTimeoutMs: 3 s here; a lock session's 10 s at most):
  // one with no answer drops its connection and fails store-io, its outcome unknown and never sent again.
  it.concurrent("list() whose page is frozen settles in bounded time", async () => {
    await onNet(async (n) => {
      await oneTurn(n, "l");
      const frozen = freezeAt(n, "WHERE length > 0 AND id >");
      const listed = n.store.list!().then((ids) => ids.join(","));
      await frozen;
      const end = await within(listed, BOUND_MS);
      expect(end.got, `waited ${end.ms} ms`).toMatch(/^(l|error [a-z-]+)$/);
    }, FROZEN);
  }, 30_000);

  it.concurrent("a wait whose watch statement is frozen is still woken by another host's append, and one with none runs out on time", async () => {
    await onNet(async (n) => {
      await oneTurn(n, "v");
      const length = (await n.other.read("v")).length;
      const frozen = freezeAt(n, ".watch(");
      const woken = within(n.store.wait!("v", length, 8_000), 10_000);
      await frozen;
      await new Promise((r) => setTimeout(r, 200));
      await n.other.append("v", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]);
      const w = await woken;
      expect(w.got).toBe("true");
      expect(w.ms).toBeLessThan(5_000); // the notification, not the timeout

      const frozenAgain = freezeAt(n, ".watch(");
      const quiet = within(n.store.wait!("v", length + 1, 1_500), 10_000);
      await frozenAgain;
      const q = await quiet;
      expect(q.got).toBe("false");
      expect(q.ms).toBeLessThan(5_000);
    });
  }, 30_000);
});
