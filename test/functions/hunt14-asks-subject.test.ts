/**
 * `asksApproval(rule, { name, path, effects })` is exported so a host can
 * show which tools will need a person (README "Tools that change things").
 * A call it cannot read (no path, a name or path that is not text, effects
 * that are not "reads", "changes" or null) is refused with a FunctaiError,
 * whatever the rule. Before, the answer depended on the rule: `["refund"]`
 * answered `true` for `{ name: "refund" }` while `["desk/refund"]` threw a
 * TypeError (`path.endsWith`) from inside the matching, and `"all"` answered
 * about `null`.
 */
import { describe, expect, it } from "vitest";
import { asksApproval } from "../../src/index.js";
import { refusal } from "../fixtures/refused.js";

const refund = { name: "refund", path: "desk/refund", effects: "changes" as const };

describe("asksApproval with a call it cannot read", () => {
  it("is refused (input-invalid) for every rule, never a TypeError or an answer", () => {
    const subjects: unknown[] = [
      undefined,
      null,
      "refund",
      { name: "refund" },
      { name: "refund", path: 7 },
      { name: 5, path: "desk/refund" },
      { ...refund, effects: "read" },
      { ...refund, effects: true },
    ];
    const rules = [["desk/refund"], ["refund"], "all", "changes", () => true, null] as const;
    for (const subject of subjects)
      for (const rule of rules) {
        const e = refusal(() => asksApproval(rule as never, subject as never));
        expect(e.code, `${JSON.stringify(rule)} on ${JSON.stringify(subject)}`).toBe("input-invalid");
        expect(e.message).toMatch(/asksApproval takes the call as \{ name, path, effects\? \}/);
      }
  });

  it("a call it can read is answered as before (effects left out, or null, count as changes)", () => {
    expect(asksApproval(["desk/refund"], refund)).toBe(true);
    expect(asksApproval(["refund"], { name: "refund", path: "support/answer/refund" })).toBe(true);
    expect(asksApproval("changes", { name: "note", path: "desk/note" })).toBe(true);
    expect(asksApproval("changes", { name: "note", path: "desk/note", effects: null })).toBe(true);
    expect(asksApproval("changes", { name: "find", path: "desk/find", effects: "reads" })).toBe(false);
    expect(asksApproval(null, refund)).toBe(false);
  });
});
