/**
 * `s.approve()` then `s.abort()` on a conversation stream whose turn waits
 * (a person clicks "approve", then "cancel", before the first is written):
 * either answer may stand — the yes, with the turn then stopped as a
 * running turn is (`stopped`), or the stop — but the turn must never be
 * left answered and run by nobody. Before, the yes was written, the stop
 * that came behind it was refused (`approval-answered`: "it goes on where
 * they were answered") and the actor had stopped, so it went on nowhere:
 * the turn read `waiting` with nothing left to answer, in no list of turns
 * that wait, until someone thought of calling `resume()`.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const desk = payDesk;

describe("a waiting turn's stream, approved then aborted at once", () => {
  it.each([
    ["a continued turn's stream (turn.stream())", "continued"],
    ["the stream that sent the turn", "sent"],
  ])("%s: the turn ends stopped (or done), never answered and left waiting", async (_, how) => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    const chat = d.conversation("c", { store, lm, approve: "changes" });
    let s: ReturnType<typeof chat.stream>;
    if (how === "continued") {
      expect(await chat.send("pay 5").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
      const [turn] = await chat.turns();
      s = turn!.stream();
    } else {
      s = chat.stream("pay 5");
      const events = s[Symbol.asyncIterator]();
      for (let e = await events.next(); !e.done && e.value.type !== "approval"; e = await events.next());
    }
    const answered = s.approve({ by: "maria" }).catch((e: unknown) => e);
    s.abort();
    const outcome = await s.then(
      (v) => v,
      (e: unknown) => e,
    );
    await answered;
    await new Promise((r) => setTimeout(r, 50));
    const [turn] = await d.conversation("c", { store }).turns();
    expect(["stopped", "done"]).toContain(turn!.state);
    if (turn!.state === "stopped") expect(outcome).toMatchObject({ code: "turn-aborted" });
    expect(paid.length).toBeLessThanOrEqual(1);
  });
});
