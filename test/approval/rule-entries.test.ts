/**
 * `asksApproval` is exported so a host can show which tools will need a
 * person. A rule it cannot read (a misspelt `"change"`, an entry that is not
 * a name or path) is refused, as `configure` refuses it, never answered
 * "nobody is asked": that would show changing tools as free to run.
 */
import { describe, expect, it } from "vitest";
import { asksApproval } from "../../src/index.js";
import { refusal } from "../fixtures/refused.js";

const refund = { name: "refund", path: "support/answer/refund", effects: "changes" as const };


describe("asksApproval with a rule it cannot read", () => {
  it("a misspelt rule is refused (it said false: nobody asked about a refund)", () => {
    for (const rule of ["change", "Changes", "", "function ", true, 1, {}]) {
      const e = refusal(() => asksApproval(rule as never, refund));
      expect(e.code).toBe("settings-invalid");
      expect(e.message).toMatch(/approve must be/);
    }
  });

  it("a list with an entry that is not a name or a path is refused (the entry was skipped)", () => {
    for (const rule of [["refund", 5], ["refund", null], ["/refund"], ["support/answer/"], [" refund"], [["refund"]]]) {
      expect(refusal(() => asksApproval(rule as never, refund)).code, JSON.stringify(rule)).toBe("settings-invalid");
    }
  });

  it("what it can read it answers as before", () => {
    expect(asksApproval(null, refund)).toBe(false);
    expect(asksApproval(undefined, refund)).toBe(false);
    expect(asksApproval([], refund)).toBe(false);
    expect(asksApproval(["answer/refund"], refund)).toBe(true);
    expect(asksApproval(["answer"], refund)).toBe(false);
    expect(asksApproval("changes", { ...refund, effects: null })).toBe(true);
    expect(asksApproval(() => true, { ...refund, effects: "reads" })).toBe(false);
  });
});
