/**
 * A yes without an approval id, for a turn this companion never showed (its
 * id came from elsewhere: a notification's link, another process), whose
 * connection dropped after the server kept it but before any of it came
 * back. Its retry was held to nothing (nothing was shown, and no `approved`
 * event said what the first answered), so the server answered every approval
 * waiting when the retry came: the turn had gone on to ask for the email,
 * and the retry of the refund's yes approved the email, which nobody saw,
 * and it was sent. Now the retry is refused until the turn is read again.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation, Waiting } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { memoryStore } from "../../src/testing/index.js";
import { keeper, proxy, until } from "./fixtures.js";
import { twoStepDesk } from "./fixtures/hunt25-kit.js";

const keep = keeper();

const settle = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );

/** `inner`, telling `kept` once an append that holds a person's answer was written. */
function watched(inner: Store, kept: () => void): Store {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === "append")
        return async (conversation: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }) => {
          const n = await target.append(conversation, records, opts);
          if (records.some((r) => (r as { kind?: string }).kind === "approval")) kept();
          return n;
        };
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("a yes without an id, for a turn this companion never showed, lost after the server kept it", () => {
  it("its retry does not approve the tool the turn asked for since: refused until the turn is read, and that tool does not run", async () => {
    let onKept: () => void = () => undefined;
    const store = watched(memoryStore(), () => onKept());
    const d = await twoStepDesk([], { gate: true, store });
    // (the waiting list is read once, at the start: the turn below is never listed before it is answered)
    const server = keep(await serve({ store, programs: [d.fn], port: 0, pollMs: 60_000 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { maxDelayMs: 50 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    // the turn begins waiting after the companion connected; its id reaches the person by another way
    const waiting = await d.fn
      .conversation("sam", { store, approve: "changes" })
      .send("Refund A-1042.")
      .catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    const ref = { conversation: "sam", turn: (waiting as Waiting).turn.id };
    // the network drops as the yes is kept: nothing of it comes back
    onKept = () => {
      onKept = () => undefined;
      net.cut();
    };
    expect(await settle(app.approve(ref))).toMatchObject({ e: { code: "remote-closed" } });
    await until(() => reconnects === 1);
    d.release();
    const emailWaits = async () =>
      readConversation(await store.read("sam"), { now: Date.now() })
        .turns.get(ref.turn)!
        .waiting.some((a) => a.name === "email");
    await until(emailWaits);
    // the companion is sent the list now (the email waits), but the retry is of the refund's yes
    await until(() => app.last.some((w) => w.approvals.some((a) => a.name === "email")));
    const retry = await settle(app.approve(ref));
    expect(retry).toMatchObject({ e: { code: "approval-unknown" } });
    expect((retry as { e: Error }).e.message).toContain("app.status");
    expect(d.RAN).toEqual(["refund A-1042"]);
    expect(await emailWaits()).toBe(true);
    // read again, the turn is answered as it shows now: the person saw the email
    const status = await app.status(ref);
    expect(status.approvals.map((a) => a.name)).toEqual(["email"]);
    expect(await app.approve(ref)).toBe("Done.");
    expect(d.RAN).toEqual(["refund A-1042", "email On its way."]);
  });
});
