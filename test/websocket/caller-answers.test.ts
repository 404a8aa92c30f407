/**
 * A caller call's approvals answered over the socket: an approval already
 * answered cannot be answered again (the second answer gets a clear error),
 * as DESIGN says of every remote answer.
 */
import { describe, expect, it } from "vitest";
import { connect, serve, type RemoteStream } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { desk, deskModel, keeper } from "./fixtures.js";

const keep = keeper();

async function setup() {
  const d = desk();
  const server = keep(await serve({ store: memoryStore(), programs: [d.fn.using({ lm: deskModel() })], port: 0 }));
  const app = keep(await connect(server.url));
  return { ...d, app };
}

/** Runs a caller call; at its approval, `answer` gives the answers (all at once); their outcomes are returned. */
async function answering(s: RemoteStream, answer: (s: RemoteStream, id: string) => Promise<void>[]): Promise<PromiseSettledResult<void>[]> {
  let results: PromiseSettledResult<void>[] = [];
  for await (const e of s) if (e.type === "approval") results = await Promise.allSettled(answer(s, e.approval.id));
  return results;
}

const codes = (results: PromiseSettledResult<void>[]) => results.map((r) => (r.status === "fulfilled" ? "ok" : (r.reason as { code: string }).code));

describe("a caller call's approval answered twice", () => {
  it("yes and no at once: one is applied, the other is refused with approval-answered", async () => {
    const { app, REFUNDS } = await setup();
    const s = app.call("desk", "Refund A-1042.", { approvals: "caller" });
    const results = await answering(s, (st) => [st.approve({ by: "a" }), st.deny("no", { by: "b" })]);
    expect(codes(results)).toEqual(["ok", "approval-answered"]);
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(REFUNDS).toHaveLength(1);
  });

  it("by its id twice: the second is refused with approval-answered; an id never asked is approval-unknown", async () => {
    const { app, REFUNDS } = await setup();
    const s = app.call("desk", "Refund A-1042.", { approvals: "caller" });
    const results = await answering(s, (st, id) => [st.deny("no", { id }), st.approve({ id }), st.approve({ id: "desk#9:9" })]);
    expect(codes(results)).toEqual(["ok", "approval-answered", "approval-unknown"]);
    expect(await s).toBe("The last tool said: The person did not allow this call. Reason: no");
    expect(REFUNDS).toEqual([]);
  });
});
