/**
 * `s.approve()` / `s.deny()` on the stream of an owner call (its approvals
 * are answered in its conversation, with `app.approve` / `app.deny`): they
 * are typed as promises, yet threw at once, so `s.approve().catch(show)`
 * (code written for either kind of call) let the error escape as a throw.
 * They reject (`turn-state`), like every other refusal of an answer. A
 * caller call's `s.approve(null)` (a JavaScript caller's slip) rejected
 * with a bare TypeError, no code; it is `input-invalid`, nothing sent.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("answering an owner call on its stream", () => {
  it("rejects with turn-state, never throws, and the call goes on waiting for its owner", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url));
    const s = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { conversation: "sam" });
    let yes: Promise<void> | undefined;
    let no: Promise<void> | undefined;
    expect(() => {
      yes = s.approve({ by: "me" });
      no = s.deny("not today");
    }).not.toThrow();
    await expect(yes).rejects.toMatchObject({ name: "RemoteError", code: "turn-state" });
    await expect(no).rejects.toMatchObject({ name: "RemoteError", code: "turn-state" });
    expect(await s.outcome).toMatchObject({ conversation: "sam", state: "waiting" });
    expect(d.REFUNDS).toEqual([]);
  });

  it("a caller call answered with options that are no object: input-invalid, nothing sent; a proper answer then goes through", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url));
    const s = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => s.pending.length === 1);
    await expect(s.approve(null as never)).rejects.toMatchObject({ name: "RemoteError", code: "input-invalid" });
    expect(d.REFUNDS).toEqual([]);
    await s.approve({ by: "me" });
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
  });
});
