/**
 * `cancel` names a call of this connection. An owner call (its turn lives in
 * a conversation, for the owner's companions) is not stopped by it, yet the
 * cancel was answered like one that worked (`reply`), so a companion
 * speaking the protocol believed a turn stopped that went on. It is refused
 * (`turn-state`), saying how such a turn is ended; a cancel of a caller call,
 * or of one that already ended, is still answered as done.
 */
import { describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";

const keep = keeper();

describe("cancel", () => {
  it("of an owner call in flight: refused (turn-state), and the call goes on", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk([], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, settings: { approve: null } }));
    const c = keep(await rawClient(server.url, ""));
    c.send({ type: "call", id: "c1", program: "desk", input: { message: "Refund A-1042." }, conversation: "sam" });
    await until(() => c.messages.some((m) => m.type === "event" && (m.event as { type: string }).type === "tool_call"));
    const cancel = await c.ask({ type: "cancel", id: "x1", call: "c1" });
    expect(cancel).toMatchObject({ type: "error", id: "x1", code: "turn-state" });
    release();
    expect(await c.answerTo("c1")).toMatchObject({ type: "reply", result: { state: "done" } });
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
    // a call that ended, or no call at all: nothing to stop, answered as done
    expect(await c.ask({ type: "cancel", id: "x2", call: "c1" })).toMatchObject({ type: "reply", id: "x2", result: null });
    expect(await c.ask({ type: "cancel", id: "x3", call: "nope" })).toMatchObject({ type: "reply", id: "x3", result: null });
  });

  it("of a caller call: stopped, as before", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const c = keep(await rawClient(server.url, ""));
    c.send({ type: "call", id: "c1", program: "desk", input: { message: "Refund A-1042." }, approvals: "caller" });
    await until(() => c.messages.some((m) => m.type === "event" && (m.event as { type: string }).type === "approval"));
    expect(await c.ask({ type: "cancel", id: "x1", call: "c1" })).toMatchObject({ type: "reply", result: null });
    expect(await c.answerTo("c1")).toMatchObject({ type: "reply", result: { state: "stopped" } });
    expect(d.REFUNDS).toEqual([]);
  });
});
