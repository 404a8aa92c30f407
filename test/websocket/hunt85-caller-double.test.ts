/**
 * A caller call's approval answered on its stream without an id
 * (`s.approve()`), twice: a person's double click, on a slow network. The
 * second yes left before the first's `approved` came back; by the time it
 * reached the server the turn had run the refund and asked for the email,
 * and the second yes approved the email, which the person never saw (its
 * `approval` event was still on its way), and it was sent. An answer without
 * an id is now held to the approvals the stream showed (sent by their ids,
 * as a conversation's answer is held to `shown`).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { keeper, proxy, until } from "./fixtures.js";
import { refundThenEmail } from "./fixtures/hunt85-kit.js";

const keep = keeper();

const settle = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );

describe("a caller call's yes without an id, sent again before the first came back", () => {
  it("does not approve the tool the turn asked for meanwhile, unseen: refused (approval-answered), and that tool does not run", async () => {
    const d = refundThenEmail();
    const server = keep(await serve({ store: memoryStore(), programs: [d.fn], port: 0 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url));
    const s = app.call("desk3", "Refund A-1042.", { approvals: "caller" });
    const seen: TurnEvent[] = [];
    const iterated = (async () => {
      for await (const e of s) seen.push(e);
    })().catch(() => undefined);
    await until(() => s.pending.some((a) => a.name === "refund"));
    net.hold(); // what the server sends from now on reaches the companion late
    const first = settle(s.approve({ by: "maria" }));
    // the server ran the refund and asked the model again, which asked for the email: its approval is on its way
    await until(() => d.RAN.length === 1 && /"type":"approval".*"name":"email"/s.test(net.heldText()), 10_000);
    expect(s.pending.map((a) => a.name)).toEqual(["refund"]); // all this companion has seen
    const second = settle(s.approve({ by: "maria" })); // the double click
    await new Promise((r) => setTimeout(r, 300));
    net.flow();
    expect(await first).toEqual({ v: undefined });
    expect(await second).toMatchObject({ e: { code: "approval-answered" } });
    await until(() => s.pending.some((a) => a.name === "email"));
    expect(d.RAN).toEqual(["refund A-1042"]);
    // the email is answered once seen
    await s.deny("not now", { by: "maria" });
    expect(await s).toBe("Done.");
    await iterated;
    expect(d.RAN).toEqual(["refund A-1042"]);
    expect(seen.filter((e) => e.type === "approval").map((e) => (e as { approval: { name: string } }).approval.name)).toEqual(["refund", "email"]);
  }, 30_000);
});
