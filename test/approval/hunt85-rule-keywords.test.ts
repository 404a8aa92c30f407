/**
 * A rule's words inside a list. `approve: ["changes", "find_order"]` reads as
 * "what changes things, and find_order too", but a list holds tool names and
 * paths, and "changes" is a name a tool may have: only a tool named
 * `changes` is asked about, and the refund runs with nobody asked, silently.
 *
 * Decided: such a list is refused (`settings-invalid`, approveProblem in
 * src/approval/rule.ts) by configure, using, a call's options and
 * asksApproval, before any model call: "changes" and "all" are rules of
 * their own, and a tool of that name is named by its path.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, asksApproval, configure, FunctaiError, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function shop() {
  const REFUNDS: string[] = [];
  const find = tool("find_order", { description: "Find.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({ id, paid: 39 }));
  const refund = tool("refund", { description: "Refund.", input: { id: z.string() }, effects: "changes" }, ({ id }) => {
    REFUNDS.push(id);
    return "refunded";
  });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { id: "A-1042" } }] }, "<result>\nDone.\n</result>"]);
  return { fn: ai("desk", { description: "Refund lost orders.", input: { message: z.string() }, tools: [find, refund] }), lm, REFUNDS };
}

describe('a list rule holding "changes" or "all"', () => {
  it('["changes", "find_order"] or ["all"]: refused before any model call, the refund never run with nobody asked (it ran: the word was read as a tool\'s name)', async () => {
    for (const rule of [["changes", "find_order"], ["all"]]) {
      const s = shop();
      const outcome = await s.fn("Refund A-1042.", { lm: s.lm, approve: rule }).then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      );
      expect(s.REFUNDS, JSON.stringify(rule)).toEqual([]);
      expect("e" in outcome && outcome.e instanceof FunctaiError).toBe(true);
      expect((outcome as { e: FunctaiError }).e.code).toBe("settings-invalid");
      expect((outcome as { e: FunctaiError }).e.message).toMatch(/a rule of its own/);
      expect(s.lm.requests).toHaveLength(0);
    }
  });

  it("configure, using and asksApproval refuse it too; a tool of that name is still named by its path", () => {
    const s = shop();
    expect(() => s.fn.using({ approve: ["all"] })).toThrow(/a rule of its own/);
    expect(() => configure({ approve: ["refund", "changes"] })).toThrow(/a rule of its own/);
    expect(() => asksApproval(["changes"], { name: "changes", path: "desk/changes", effects: "reads" })).toThrow(/a rule of its own/);
    expect(asksApproval(["desk/changes"], { name: "changes", path: "desk/changes", effects: "reads" })).toBe(true);
  });
});
