/**
 * What a companion's user sees when something goes wrong on its side of
 * the wire: always a FunctaiError with a code, and nothing left pending.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { FunctaiError } from "../../src/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** A port nothing listens on (taken, then let go). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

const failure = (p: PromiseLike<unknown>): Promise<unknown> => Promise.resolve(p).then(() => null, (e: unknown) => e);

describe("a companion's own failures", () => {
  it("connecting to a server that is not there, or to an address that is not a WebSocket URL, rejects with a FunctaiError", async () => {
    const down = await failure(connect(`ws://127.0.0.1:${await freePort()}`, { key: "k1" }));
    expect(down).toBeInstanceOf(FunctaiError);
    expect(down).toMatchObject({ code: "remote-closed" });
    const bad = await failure(connect("not a url", { key: "k1" }));
    expect(bad).toBeInstanceOf(FunctaiError);
    expect(bad).toMatchObject({ code: "settings-invalid" });
  });

  it("a call whose input is not JSON is refused as input-invalid, and the connection goes on", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    const cyclic: Record<string, unknown> = { message: "Refund A-1042." };
    cyclic.self = cyclic;
    for (const input of [{ message: 10n }, cyclic]) {
      const e = await failure(app.call("desk", input, { approvals: "caller" }));
      expect(e).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "input-invalid" });
    }
    const [w] = await app.waiting();
    const e = await failure(app.resume({ conversation: "sam", turn: w!.turn, results: { 2: 10n } }));
    expect(e).toMatchObject({ code: "input-invalid" });
    expect(d.lm.requests).toHaveLength(2); // nothing ran
    expect((await app.waiting()).map((x) => x.conversation)).toEqual(["sam"]);
  });
});
