/**
 * A request the server would refuse as malformed (a conversation id typed
 * by a person, a `by` longer than the protocol takes) is the app's input
 * mistake: refused by the companion (`input-invalid`), never sent. Sent,
 * each was a strike, and the 21st closed the companion's connection as
 * abusive (4429), failing every request in flight with it.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();
const settle = <T>(p: PromiseLike<T>) =>
  Promise.resolve(p).then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );

describe("requests the protocol does not take", () => {
  it("are refused by the companion with input-invalid, nothing sent: 25 of them leave the connection open", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const closes: number[] = [];
    app.on("close", (e) => closes.push(e.code));
    const [w] = await app.waiting();
    for (let i = 0; i < 25; i++) {
      const r = await settle(app.status({ conversation: "Sam Smith", turn: w!.turn }));
      expect(r).toMatchObject({ e: { code: "input-invalid", message: expect.stringContaining("conversation") } });
    }
    const long = await settle(app.approve({ conversation: "sam", turn: w!.turn, by: "x".repeat(300) }));
    expect(long).toMatchObject({ e: { code: "input-invalid", message: expect.stringContaining("by") } });
    expect(readConversation(await d.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!.answers).toEqual([]);
    expect(closes).toEqual([]);
    expect(await app.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).toBe("The last tool said: refunded 39.00 for A-1042");
  });
});
