/**
 * A frame the server cannot read (out of shape) whose `id` is that of a
 * request still running was refused BY that id: the companion took the
 * refusal as the running request's answer (settled as failed), and that
 * request then got its own reply too (two answers for one id, against the
 * protocol). It is now refused without the id, as a well-formed request
 * reusing a running id is (hunt29-frames).
 */
import { describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";

const keep = keeper();

describe("a frame out of shape carrying the id of a running request", () => {
  it("is refused without that id: the running request's own reply is the only answer its id gets", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const c = keep(await rawClient(server.url, ""));
    const [w] = (await c.ask({ type: "waiting", id: "w1" })).result as { turn: string }[];
    c.send({ type: "approve", id: "x1", conversation: "sam", turn: w!.turn, by: "maria" });
    await until(() => c.messages.some((m) => m.type === "event" && m.id === "x1"));
    c.send({ type: "approve", id: "x1", conversation: 42 }); // out of shape, the running request's id
    await until(() => c.messages.some((m) => m.type === "error"));
    release();
    await c.answerTo("x1");
    await until(() => d.REFUNDS.length === 1);
    const answers = c.messages.filter((m) => (m.type === "reply" || m.type === "error") && m.id === "x1");
    expect(answers).toEqual([{ type: "reply", id: "x1", result: expect.objectContaining({ state: "done" }) }]);
    expect(c.messages.filter((m) => m.type === "error")).toEqual([
      { type: "error", id: null, code: "remote-protocol", message: expect.stringContaining("message not understood") },
    ]);
  }, 20_000);
});
