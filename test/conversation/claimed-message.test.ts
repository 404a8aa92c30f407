/**
 * A resume refused because the turn goes on elsewhere says which: the
 * process that began it still runs it, or another resumed it first. The
 * message used to say "was resumed by another process first" for both.
 * An abandon refused so says the turn runs elsewhere: it used to say "was
 * resumed elsewhere first" of a turn approved and run on elsewhere, though
 * nothing was resumed here.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusalOf } from "../fixtures/refused.js";

/** A desk whose one changing tool, once the model asks for it, runs until `finish()`: `running` says it started. */
function gatedRefund() {
  let finish!: () => void;
  const gate = new Promise<void>((r) => (finish = r));
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const refund = tool("refund", { description: "Refund.", input: { order: z.string() }, effects: "changes" }, async () => {
    started();
    await gate;
    return "refunded";
  });
  const desk = ai("desk", { description: "Refunds.", input: { request: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
  return { desk, store: memoryStore(), lm, running, finish };
}

describe("turn-claimed, when the turn goes on elsewhere", () => {
  it("names a turn still run by the process that began it as running elsewhere, not resumed", async () => {
    const { desk, store, lm, running, finish } = gatedRefund();
    const sent = desk.conversation("c", { store, lm }).send({ request: "Refund A-1." });
    await running;
    const [turn] = await desk.conversation("c", { store, lm: scripted([]) }).turns();
    expect(turn!.state).toBe("running");
    const e = await refusalOf(() => turn!.resume());
    expect(e).toMatchObject({ code: "turn-claimed" });
    expect(e.message).toMatch(/is running elsewhere/);
    expect(e.message).not.toMatch(/resumed/);
    finish();
    expect(await sent).toBe("Refunded.");
  });

  it("refuses to abandon a turn approved and run on elsewhere, saying it runs there, not that it was resumed first", async () => {
    const { desk, store, lm, running, finish } = gatedRefund();
    const waited = await refusalOf(() => desk.conversation("c", { store, lm, approve: "changes" }).send({ request: "Refund A-1." }));
    expect(waited).toMatchObject({ code: "turn-waiting" });
    const [asked] = await desk.conversation("c", { store, lm }).turns();
    const approved = asked!.approve();
    await running;
    const [turn] = await desk.conversation("c", { store, lm: scripted([]) }).turns();
    expect(turn!.state).toBe("running");
    const e = await refusalOf(() => turn!.abandon());
    expect(e).toMatchObject({ code: "turn-claimed" });
    expect(e.message).toMatch(/is running elsewhere \(attempt 2/);
    expect(e.message).toMatch(/not abandoned here/);
    expect(e.message).not.toMatch(/resumed elsewhere first/);
    finish();
    expect(await approved).toBe("Refunded.");
  });
});
