/**
 * A companion cut off fails its requests in flight with `remote-closed`,
 * naming a turn that may go on in the server (README: "naming a turn that
 * may go on in the server"), so a person can look it up with `app.status`.
 * An answer or resume cut off before its first event named none, though
 * it was sent for a turn it names itself: the person was told only that
 * the connection closed, not whether or where their answer may have gone
 * on; and the stream's `turn` was null.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { Store } from "../../src/store/types.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** A waiting desk behind a proxy whose store holds the reads of "sam" (once armed) until released: the server has sent nothing of an answer yet. */
async function slowDesk() {
  const d = await waitingDesk(["sam"]);
  let armed = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  const store: Store = Object.assign(Object.create(d.store) as Store, {
    read: async (conversation: string, ...rest: unknown[]) => {
      if (armed && conversation === "sam") await released;
      return (d.store.read as (...a: unknown[]) => ReturnType<Store["read"]>).call(d.store, conversation, ...rest);
    },
  });
  const server = keep(await serve({ store, programs: [d.served], keys: ["k1"], port: 0 }));
  const net = keep(await proxy(server.port));
  const app = keep(await connect(net.url, { key: "k1", maxDelayMs: 50 }));
  const [w] = await app.waiting();
  return { d, net, app, turn: w!.turn, arm: () => (armed = true), release };
}

describe("a request about a turn, cut off before its first event", () => {
  it.each(["approve", "deny", "resume"] as const)(
    "%s: remote-closed names the turn and its conversation; the stream knows its turn",
    async (kind) => {
      const { d, net, app, turn, arm, release } = await slowDesk();
      let reconnected = false;
      app.on("reconnect", () => (reconnected = true));
      arm();
      const ref = { conversation: "sam", turn };
      const s = kind === "approve" ? app.approve({ ...ref, by: "maria" }) : kind === "deny" ? app.deny({ ...ref, reason: "no" }) : app.resume(ref);
      await new Promise((r) => setTimeout(r, 100)); // sent, and nothing of it came back
      net.cut();
      const e = (await s.outcome.then(
        () => null,
        (x: unknown) => x,
      )) as { code?: string; message?: string } | null;
      expect(e?.code).toBe("remote-closed");
      expect(e?.message).toContain(`turn ${turn} of conversation sam`);
      expect(s.turn).toBe(turn);
      release();
      await until(() => reconnected);
      if (kind === "resume") return;
      // where it named, the answer went on: the person finds it there
      await until(async () => (await app.status(ref)).state === "done");
      expect(d.REFUNDS).toHaveLength(kind === "approve" ? 1 : 0);
    },
    20_000,
  );
});
