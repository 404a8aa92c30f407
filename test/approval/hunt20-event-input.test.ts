/**
 * What an approve function approved is what runs. README "Tools that change
 * things": the input an approve function "is shown is a frozen copy: it
 * cannot change what runs", and a stream's reader shown the approval cannot
 * either (test/engine/approve-function.test.ts). But the same call's
 * `tool_call` event carries the very object the tool will be run with: a
 * stream's reader that changes it in place (a UI that masks a card number
 * for display, a logger that redacts a field) while an async approve
 * function is still deciding changes what runs after the function said yes.
 * Here the function approves a refund of 5 and the tool runs with 1000.
 * (Under a rule the turn replays the recorded reply, so the person's yes runs
 * a fresh reading of the input; only the in-process function is exposed.)
 *
 * The fix belongs where the event is made (src/engine/tool-calls.ts,
 * prepare(): emit the `tool_call` event with a frozen copy of the input, as
 * src/engine/approvals.ts shownInput does for approvals, or run the tool with
 * its own copy), and it was
 * fixed there (this test was it.fails until then).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, resetConfiguration, tool, type Approval } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

beforeEach(() => resetConfiguration());

describe("a stream reader that changes a tool_call event's input in place", () => {
  it("while an async approve function decides: the tool runs with what the function approved (it ran with the reader's change)", async () => {
    const RAN: { order_id: string; amount: number }[] = [];
    const refund = tool(
      "refund",
      { description: "Refund.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
      (input) => (RAN.push({ ...input }), "refunded"),
    );
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5 } }] }, "done"]);
    const approved: unknown[] = [];
    // a manager asked over chat: answers a little later; refunds up to 20 are fine
    const manager = async (a: Approval) => {
      await new Promise((r) => setTimeout(r, 20));
      approved.push(a.input);
      return (a.input as { amount: number }).amount <= 20;
    };
    const s = desk.stream("Refund A-1.", { lm, approve: manager });
    for await (const e of s) {
      // a display layer that writes its own view of the event over it (it was not frozen, so nothing said no)
      if (e.type === "tool_call") (e.input as { amount: number }).amount = 1000;
    }
    expect(await s).toBe("done");
    expect(approved).toEqual([{ order_id: "A-1", amount: 5 }]);
    expect(RAN).toEqual([{ order_id: "A-1", amount: 5 }]);
  });
});
