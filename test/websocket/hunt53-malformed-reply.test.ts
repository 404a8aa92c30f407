/**
 * A companion drops a server message it cannot read (hunt25-hostile-server):
 * right for pushes and events, but a reply or an error that names a request
 * in flight and is out of shape (an error without its message, a code past
 * 100 characters: a buggy or newer server) was dropped too, and the request
 * waited for ever: nothing else would ever answer it. It now fails that
 * request at once, `remote-protocol`, and the connection goes on.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../adapters/websocket/index.js";
import { keeper } from "./fixtures.js";
import { fakeServer } from "./fixtures/hunt25-kit.js";

const keep = keeper();

/** Settles within a generous bound (a loaded machine), or says it did not. */
const within = <T>(p: Promise<T>, ms = 5000): Promise<T | "still waiting"> =>
  Promise.race([p, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), ms))]);

describe("a reply out of shape for a request in flight", () => {
  it("fails that request (remote-protocol) instead of leaving it waiting for ever; the next one is answered", async () => {
    const bad = [
      (id: string) => ({ type: "error", id, code: "turn-state" }), // no message
      (id: string) => ({ type: "error", id, code: "x".repeat(101), message: "a code too long" }),
      (_id: string) => ({ type: "reply", id: 7 }), // (an id of the wrong kind names nothing: left as it is)
    ];
    let n = 0;
    const server = keep(
      await fakeServer((ws, m) => {
        const shape = bad[n++];
        if (shape) ws.send(JSON.stringify(shape(m.id)));
        else ws.send(JSON.stringify({ type: "reply", id: m.id, result: [] }));
      }),
    );
    const app = keep(await connect(server.url, { reconnect: false }));
    for (let i = 0; i < 2; i++) {
      const outcome = await within(
        app.waiting().then(
          () => "answered",
          (e: unknown) => e,
        ),
      );
      expect(outcome).toMatchObject({ code: "remote-protocol", message: expect.stringContaining("not understood") });
    }
    // the frame with no usable id cannot name the request: it stays in flight, and a later request is still answered
    const third = app.waiting();
    third.catch(() => undefined);
    expect(await within(app.waiting())).toEqual([]);
  });
});
