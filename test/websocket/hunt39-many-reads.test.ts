/**
 * A companion that asks for many reads at once (a page showing 150 turns'
 * status) went past the server's rate: each read refused there was a strike,
 * and past 20 the connection was closed as abusive (4429), taking an answer
 * in flight with it (told `remote-closed` though it ran). A read past the
 * rate the server announced is refused by the companion itself
 * (`remote-rate-limit`, nothing sent): ask it again; nothing else is lost.
 */
import { describe, expect, it } from "vitest";
import { keeper } from "./fixtures.js";
import { servedMany } from "./fixtures/hunt39-kit.js";

const keep = keeper();

describe("150 reads at once, beside an answer", () => {
  it("the connection stays; the answer is told as it ran; reads past the rate are refused with nothing sent", async () => {
    const { app, closes } = await servedMany(150, keep);
    const list = await app.waiting();
    const [first] = list;
    const answered = app.approve({ conversation: first!.conversation, turn: first!.turn, by: "maria" }).outcome;
    const reads = await Promise.allSettled(list.map((w) => app.status({ conversation: w.conversation, turn: w.turn })));
    expect(await answered).toMatchObject({ state: "done" });
    expect(closes).toEqual([]);
    const refused = reads.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => (r.reason as { code: string }).code);
    expect(new Set(refused)).toEqual(new Set(refused.length > 0 ? ["remote-rate-limit"] : []));
    expect(reads.filter((r) => r.status === "fulfilled").length).toBeGreaterThan(50);
    // the connection still serves
    await new Promise((r) => setTimeout(r, 200));
    expect((await app.waiting()).length).toBe(149);
  }, 30_000);
});
