/**
 * `s.abort()` on the stream of an owner call (a turn the server runs in a
 * conversation of its store, on this companion's behalf) did nothing once
 * the call was sent: the turn ran on to its end, refunds and all, while the
 * caller believed it stopped. It now stops the turn as `abort()` stops a
 * conversation's stream in process: the turn ends `stopped`, and the stream
 * says so. A plain `cancel` of an owner call (a companion that does not ask
 * for this) is still refused (hunt36-cancel-owner).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";
import { gatedReads } from "./fixtures/hunt53-kit.js";

const keep = keeper();
const MESSAGE = { message: "Order A-1042 never arrived. Refund it, please." };

describe("abort() of an owner call", () => {
  it("stops its turn on the server: stopped, and the model is not asked again", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk([], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, settings: { approve: null } }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const s = app.call("desk", MESSAGE, { conversation: "sam" });
    const seen: string[] = [];
    const iterated = (async () => {
      for await (const e of s) {
        seen.push(e.type);
        if (e.type === "tool_call" && e.name === "refund") s.abort(); // the refund is running, held at the gate
      }
    })().catch((e: unknown) => e);
    await until(() => seen.filter((t) => t === "tool_call").length === 2);
    // let the abort reach the server before the tool ends (a loaded machine: generous)
    await new Promise((r) => setTimeout(r, 300));
    release();
    const outcome = await s.outcome;
    expect(outcome.state).toBe("stopped");
    await iterated;
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "turn-aborted" });
    expect((await app.status({ conversation: "sam", turn: outcome.turn })).state).toBe("stopped");
    // find_order, refund: the third model step (the answer) was never asked for
    expect(d.lm.requests).toHaveLength(2);
  }, 20_000);

  it("asked by a raw companion with owner: true, before its turn started: it is never written (turn-aborted)", async () => {
    const d = await waitingDesk([]);
    const reads = gatedReads(d.store, "sam");
    // a key limited to the desk: the server reads the conversation before it starts the call (may this key join it?)
    const server = keep(
      await serve({ store: reads.store, programs: [d.served], port: 0, keys: [{ key: "k1", programs: ["desk"] }], settings: { approve: null } }),
    );
    const c = keep(await rawClient(server.url, "k1"));
    reads.hold();
    c.send({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam" });
    await reads.reached; // the call is being checked: its turn has not started
    const cancel = await c.ask({ type: "cancel", id: "x1", call: "c1", owner: true });
    expect(cancel).toMatchObject({ type: "reply", id: "x1", result: null });
    reads.release();
    const reply = await c.answerTo("c1");
    // stopped before its turn was written: refused as such, nothing of it in the conversation
    expect(reply).toMatchObject({ type: "error", id: "c1", code: "turn-aborted" });
    expect(await d.store.read("sam")).toEqual([]);
    expect(d.REFUNDS).toEqual([]);
    expect(d.lm.requests).toHaveLength(0);
  }, 20_000);

  it("with owner: true naming an answer in flight (no call): refused, and the answer runs on", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const c = keep(await rawClient(server.url, ""));
    const w = (await c.ask({ type: "waiting", id: "w1" })).result as { turn: string }[];
    c.send({ type: "approve", id: "a1", conversation: "sam", turn: w[0]!.turn, by: "maria" });
    await until(() => c.messages.some((m) => m.type === "event" && (m.event as { type: string }).type === "tool_call"));
    expect(await c.ask({ type: "cancel", id: "x1", call: "a1", owner: true })).toMatchObject({ type: "error", id: "x1", code: "turn-state" });
    release();
    expect(await c.answerTo("a1")).toMatchObject({ type: "reply", result: { state: "done" } });
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  }, 20_000);
});
