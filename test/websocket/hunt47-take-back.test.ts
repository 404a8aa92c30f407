/**
 * A request that runs a turn waits in the companion while the server's
 * `maxRuns` for the connection is taken (pace.ts), for as long as those
 * runs last: a call waiting for its caller's answer holds its run until
 * then. A caller call held so is taken back by `s.abort()`; an answer or a
 * resume held so could not be: `abort()` on its stream did nothing, and the
 * answer went out whenever room came, perhaps long after the person who
 * gave it had changed their mind. Now it is taken back while held
 * (`turn-aborted`, nothing sent); once sent it goes on, as before.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();
const MESSAGE = { message: "Order A-1042 never arrived. Refund it, please." };

describe("an answer held for the server's maxRuns", () => {
  it("is taken back by abort(): turn-aborted, never sent; the turn still waits", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 1 }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const [w] = await app.waiting();
    const call = app.call("desk", MESSAGE, { approvals: "caller" });
    await until(() => call.pending.length === 1); // it holds the one run, waiting for its caller's answer
    const answer = app.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    await new Promise((r) => setTimeout(r, 100));
    answer.abort();
    await expect(answer.outcome).rejects.toMatchObject({ code: "turn-aborted" });
    await call.approve();
    expect(await call).toBe("The last tool said: refunded 39.00 for A-1042");
    await new Promise((r) => setTimeout(r, 300)); // room came: a held answer would have gone out now
    expect((await app.status({ conversation: "sam", turn: w!.turn })).state).toBe("waiting");
    expect(d.REFUNDS).toHaveLength(1); // the call's refund only
  }, 20_000);

  it("once sent, abort() leaves it be: it runs to its answer", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 1 }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const [w] = await app.waiting();
    const answer = app.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    answer.abort();
    expect(await answer).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(1);
  }, 20_000);
});
