/**
 * A reader that gives up on a `next()` still waiting (a timeout raced
 * against it) and calls the iterator's `return()` or `throw()`: the turn is
 * stopped at once and the waiting `next()` gets its `stopped` event, where before `return()`
 * queued behind that `next()`, which waited for an event that never came.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = <T>(p: Promise<T>, ms = 500): Promise<T | "still pending"> => Promise.race([p, sleep(ms).then(() => "still pending" as const)]);

/** A stream waiting for an approval, read by hand up to its last event so far, and a next() left waiting. */
async function waitingWithPendingNext() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] }, echoLast]);
  const s = fn.stream("Refund A-1", { lm, approve: "changes" });
  const events = s[Symbol.asyncIterator]();
  for (;;) {
    const { value } = await events.next();
    if (value?.type === "state" && value.state === "awaitingApproval") break;
  }
  const pending = events.next();
  expect(await within(pending, 50)).toBe("still pending"); // nothing more comes: the turn waits for a person
  return { s, t, events, pending };
}

describe("a TurnStream's iterator, left while a next() waits", () => {
  it("return() stops the turn and settles, and so does the waiting next()", async () => {
    const { s, t, events, pending } = await waitingWithPendingNext();
    expect(await within(events.return!(undefined))).toEqual({ done: true, value: undefined });
    // asked for before return(): it gets what came next, the turn's stop
    expect(await within(pending)).toMatchObject({ done: false, value: { type: "state", state: "stopped" } });
    expect(s.state).toBe("stopped");
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(t.REFUNDS).toEqual([]);
  });

  it("throw() stops the turn and settles", async () => {
    const { s, events, pending } = await waitingWithPendingNext();
    const thrown = events.throw!(new Error("gave up")).then(() => "resolved", (e: unknown) => (e as Error).message);
    expect(await within(thrown)).not.toBe("still pending");
    expect(await within(pending)).toMatchObject({ done: false, value: { type: "state", state: "stopped" } });
    expect(s.state).toBe("stopped");
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });
});
