/**
 * A companion holds a request that runs a turn while the server's `maxRuns`
 * is taken (pace.ts). Those held requests wait for room, not for the rate:
 * they take no token until they go. The wait a new request was refused for
 * (past 8 s, `remote-rate-limit`) counted them all as though each were
 * ahead of it for the rate, so an answer to a caller call (which passes the
 * held runs) was refused while the server would take it at once, and a
 * cancel was dropped without a word: the call that held the one run could
 * then never be answered nor stopped, and everything held behind it waited
 * for ever.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();
const MESSAGE = { message: "Order A-1042 never arrived. Refund it, please." };

/**
 * A server taking one run at once and one message a second (five at once); a caller call holding that run, waiting
 * for its answer; approvals held behind it, as many as the companion takes (it refuses, at once, one that would wait
 * past 8 s for the rate).
 */
async function held() {
  const d = await waitingDesk(["sam"]);
  const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 1, rate: { perSecond: 1, burst: 5 } }));
  const app = keep(await connect(server.url, { reconnect: false }));
  const [w] = await app.waiting();
  const first = app.call("desk", MESSAGE, { approvals: "caller" });
  await until(() => first.pending.length === 1);
  const asked = Array.from({ length: 20 }, () => app.approve({ conversation: "sam", turn: w!.turn, by: "maria" }).outcome);
  const refusedAtOnce = new Set<Promise<unknown>>();
  for (const a of asked) a.catch((e: { code?: string }) => e.code === "remote-rate-limit" && refusedAtOnce.add(a));
  await new Promise((r) => setTimeout(r, 50));
  const approvals = asked.filter((a) => !refusedAtOnce.has(a));
  expect(refusedAtOnce.size).toBeGreaterThan(0); // the companion's own bound was reached: the queue is as long as it takes
  expect(approvals.length).toBeGreaterThan(5);
  return { d, app, first, approvals };
}

describe("requests held for maxRuns do not count as waiting for the rate", () => {
  it("the answer to the call holding the run is sent at once, and the held approvals go after it", async () => {
    const { d, first, approvals } = await held();
    await expect(first.approve({ by: "maria" })).resolves.toBeUndefined();
    expect(await first).toBe("The last tool said: refunded 39.00 for A-1042");
    // then the held approvals run, one at a time: one is kept, the others refused as answered
    const settled = await Promise.allSettled(approvals);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    expect(new Set(settled.flatMap((s) => (s.status === "rejected" ? [(s.reason as { code: string }).code] : [])))).toEqual(
      new Set(["approval-answered"]),
    );
    expect(d.REFUNDS).toHaveLength(2);
  }, 40_000);

  it("a cancel of the call holding the run reaches the server: the call stops", async () => {
    const { d, first } = await held();
    first.abort();
    const outcome = await first.outcome;
    expect(outcome.state).toBe("stopped");
    expect(d.REFUNDS).toHaveLength(0);
  }, 20_000);
});
