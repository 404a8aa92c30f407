/**
 * A second `hello` on a connection that said hello is refused as a strike.
 * Carrying the id of a request still running there, its refusal was sent by
 * that id: the companion took it as that request's answer (an approval told
 * as refused, `remote-protocol`) while the request went on and ran the turn.
 * It is refused without the id, as any other message that reuses a running
 * request's id is (hunt 93).
 */
import { describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";

const keep = keeper();

describe("a second hello carrying the id of a running request", () => {
  it("is refused without that id: the running request's only answer is its own reply", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const c = keep(await rawClient(server.url, "k1"));
    const listed = await c.ask({ type: "waiting", id: "w1" });
    const turn = (listed.result as { turn: string }[])[0]!.turn;
    c.send({ type: "approve", id: "x1", conversation: "sam", turn, by: "maria" });
    // the approve runs (held in the refund, behind the gate) when the second hello comes
    await until(() => c.messages.some((m) => m.type === "event" && m.id === "x1"));
    c.send({ type: "hello", id: "x1", v: 1, key: "k1" });
    await until(() => c.messages.some((m) => m.type === "error"));
    release();
    const answer = await c.answerTo("x1");
    expect(c.messages.filter((m) => (m.type === "reply" || m.type === "error") && m.id === "x1")).toEqual([answer]);
    expect(answer).toMatchObject({ type: "reply", result: { state: "done" } });
    expect(c.messages.filter((m) => m.type === "error")).toEqual([
      expect.objectContaining({ type: "error", id: null, code: "remote-protocol", message: "hello was already said" }),
    ]);
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });
});
