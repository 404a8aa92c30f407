/**
 * What an approve function (and a stream's reader) is shown cannot change
 * what runs: the approval's input is a frozen copy, so changing it fails
 * loudly, and the tool runs with the model's input. An approve function
 * answers true, false or a reason; anything else (a forgotten return) fails
 * the call (`plugin-failed`) instead of being taken for a refusal unseen.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type Approval } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function refundDesk() {
  const refunds: number[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string(), amount: z.number(), lines: z.array(z.object({ sku: z.string() })) }, effects: "changes" }, ({ amount }) => {
    refunds.push(amount);
    return `refunded ${amount}`;
  });
  const desk = ai("desk", { description: "Refund.", input: { ask: z.string() }, tools: [refund] });
  const lm = () => scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5, lines: [{ sku: "k" }] } }] }, (r) => `done: ${r.messages.at(-1)!.content}`]);
  return { desk, refunds, lm };
}

describe("an approve function", () => {
  it("cannot change the input that runs: the input it is shown is a frozen copy (changing it fails the call, nothing runs)", async () => {
    const { desk, refunds, lm } = refundDesk();
    const seen: Approval[] = [];
    const approve = (a: Approval) => {
      seen.push(a);
      (a.input as { amount: number }).amount = 1000;
      return true;
    };
    await expect(desk("refund A-1", { lm: lm(), approve })).rejects.toMatchObject({ code: "plugin-failed", message: /read only|read-only|frozen|not extensible/i });
    expect(refunds).toEqual([]);
    expect(seen[0]!.input).toEqual({ order_id: "A-1", amount: 5, lines: [{ sku: "k" }] });
    const nested = (a: Approval) => {
      (a.input as { lines: { sku: string }[] }).lines[0]!.sku = "other";
      return true;
    };
    await expect(desk("refund A-1", { lm: lm(), approve: nested })).rejects.toMatchObject({ code: "plugin-failed" });
    expect(refunds).toEqual([]);
  });

  it("a stream's reader shown the approval cannot change what runs either", async () => {
    const { desk, refunds, lm } = refundDesk();
    const s = desk.using({ approve: "changes" }).stream("refund A-1", { lm: lm() });
    let changed: unknown = null;
    for await (const e of s) {
      if (e.type !== "approval") continue;
      try {
        (e.approval.input as { amount: number }).amount = 1000;
      } catch (err) {
        changed = err;
      }
      await s.approve();
    }
    expect(changed).toBeInstanceOf(TypeError);
    expect(await s).toBe("done: refunded 5");
    expect(refunds).toEqual([5]);
  });

  it("answers true, false or a reason; anything else fails the call with plugin-failed naming it, before the tool runs", async () => {
    for (const odd of [undefined, null, 1, {}, false] as unknown[]) {
      const { desk, refunds, lm } = refundDesk();
      const outcome = await desk("refund A-1", { lm: lm(), approve: (() => odd) as never }).then(
        (v) => ({ value: v }),
        (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
      );
      if (odd === false) expect(outcome).toEqual({ value: "done: The person did not allow this call." });
      else expect(outcome).toMatchObject({ code: "plugin-failed", message: expect.stringMatching(/approve function gave .* for desk\/refund: return true/) });
      expect(refunds).toEqual([]);
    }
    const { desk, lm } = refundDesk();
    expect(await desk("refund A-1", { lm: lm(), approve: async () => "not today" })).toBe("done: The person did not allow this call. Reason: not today");
  });
});
