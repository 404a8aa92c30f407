/**
 * Small timeouts on the store's role (statement_timeout, lock_timeout,
 * idle_in_transaction_session_timeout, idle_session_timeout), as a
 * deployment sets them against runaway app sessions: a held turn's lock
 * session, the pool's clients and the LISTEN connection sit idle for longer
 * than that while turns run and waits wait.
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { type Playground, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

const SMALL = {
  statement_timeout: "500",
  lock_timeout: "200",
  idle_in_transaction_session_timeout: "200",
  idle_session_timeout: "800",
};

/** The backends holding the advisory lock of `turn` in `conversation` (keyed as liveness.ts lockText). */
const holders = (g: Playground, schema: string, conversation: string, turn: string): Promise<{ pid: number }[]> =>
  g.sql<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted
       AND ((classid::bigint << 32) | objid::bigint) = pg_catalog.hashtextextended($1, 0::bigint)`,
    [JSON.stringify(["functai", schema, conversation, turn])],
  );

describe.skipIf(NO_SERVER !== null)("postgres store: small timeouts on the role", () => {
  it("a held turn idle past idle_session_timeout keeps its lock on the same session; its fenced append goes through", async () => {
    const ground = await playground(SMALL);
    const schema = freshSchema();
    const host = open(ground.url, schema);
    const other = open(ground.url, schema);
    await host.append("sam", [rec("turn", { turn: "t1" })]);
    const release = await host.liveness!.hold("sam", "t1");
    const before = await holders(ground, schema, "sam", "t1");
    expect(before).toHaveLength(1);
    // idle for three idle_session_timeouts: a session the server ended would have lost the lock (the turn reads interrupted)
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await holders(ground, schema, "sam", "t1")).toEqual(before);
    expect(await other.liveness!.isHeld("sam", "t1")).toBe(true);
    // the pool's clients the server ended while idle are replaced: the append is kept, fenced by the same lock
    expect(await host.append("sam", [rec("lease", { turn: "t1" })], { expect: 1 })).toBe(2);
    expect(await holders(ground, schema, "sam", "t1")).toEqual(before);
    release();
  });

  it("a wait longer than idle_session_timeout still wakes on an append made after the listener's session was ended", async () => {
    const ground = await playground(SMALL);
    const schema = freshSchema();
    const waiter = open(ground.url, schema);
    const writer = open(ground.url, schema);
    await writer.append("sam", [rec()]);
    const woken = waiter.wait!("sam", 1, 15_000);
    await new Promise((r) => setTimeout(r, 2_500)); // the LISTEN connection idles past 800 ms: ended (maybe more than once)
    const t0 = Date.now();
    await writer.append("sam", [rec()]);
    expect(await woken).toBe(true);
    // woken by a notification or by the re-read after a reconnect: within a few reconnects, never at the timeout
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
