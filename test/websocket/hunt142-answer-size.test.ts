/**
 * Guard: with the server's maxPayload at the floor its hello needs (hunt 130), the frames a person's answers make can
 * still be longer than it takes: a deny's long reason, an approval's `by`, a caller call's answer, a resume's results.
 * Sent, each would close the connection (1009) and fail every request in flight with it. Each is refused before it
 * is sent (input-invalid, naming the limit): nothing acted, the connection kept (no close, no reconnect), and the
 * same answer made to fit then acts once.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { crashedDesk, keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** What a refused request says: its code and message. */
const refusal = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => null,
    (e: unknown) => e as { code?: string; message?: string },
  );

/** The least maxPayload a server without keys takes (its largest hello), as its refusal of a smaller one says it. */
async function floor(options: Pick<Parameters<typeof serve>[0], "store" | "programs">): Promise<number> {
  const e = await refusal(serve({ ...options, port: 0, maxPayload: 1 }));
  return Number(/give at least (\d+)/.exec(e?.message ?? "")?.[1]);
}

describe("an answer past a maxPayload at the hello's floor", () => {
  it("a deny's reason, an approval's by, a caller call's answer: refused, naming the limit; nothing acted, the connection kept", async () => {
    const d = await waitingDesk(["sam"]);
    const max = await floor({ store: d.store, programs: [d.served] });
    expect(max).toBeGreaterThan(0);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxPayload: max }));
    const app = keep(await connect(server.url, { maxDelayMs: 50 }));
    const told: string[] = [];
    app.on("close", (e) => told.push(`close ${e.code}`));
    app.on("reconnect", () => told.push("reconnect"));
    const [w] = await app.waiting();
    const ref = { conversation: "sam", turn: w!.turn };

    for (const answer of [app.deny({ ...ref, reason: "x".repeat(max) }), app.approve({ ...ref, by: "€".repeat(200) })]) {
      const e = await refusal(answer);
      expect(e).toMatchObject({ code: "input-invalid" });
      expect(e?.message).toContain(`at most ${max}`);
    }
    expect(await app.status(ref)).toMatchObject({ state: "waiting" });

    const s = app.call("desk", { message: "Order A-1042 never arrived." }, { approvals: "caller" });
    for await (const e of s) if (e.type === "approval") break;
    const e = await refusal(s.deny("y".repeat(max)));
    expect(e).toMatchObject({ code: "input-invalid" });
    expect(e?.message).toContain(`at most ${max}`);
    await s.deny("no"); // (the call's approval still waits for an answer: the refused one was never sent)
    // (the model is told the reason that was sent, not the one refused)
    expect(await s).toBe("The last tool said: The person did not allow this call. Reason: no");

    // the person's answer made to fit acts, once
    expect(await app.approve({ ...ref, by: "maria" })).toMatch(/refunded 39.00/);
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
    expect(told).toEqual([]);
  });

  it("a resume's results: refused, naming the limit; the turn stays interrupted, and a resume that fits goes on once", async () => {
    const d = await crashedDesk(["sam"]);
    const max = await floor({ store: d.store, programs: [d.served] });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20, maxPayload: max }));
    const app = keep(await connect(server.url));
    await until(async () => (await app.waiting()).length === 1);
    const [sam] = await app.waiting();
    const ref = { conversation: "sam", turn: sam!.turn };
    const e = await refusal(app.resume({ ...ref, results: { 2: "z".repeat(max) } }));
    expect(e).toMatchObject({ code: "input-invalid" });
    expect(e?.message).toContain(`at most ${max}`);
    expect(await app.status(ref)).toMatchObject({ state: "interrupted" });
    expect(await app.resume({ ...ref, results: { 2: "refunded 39.00 for A-1042" } })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(1);
  });
});
