/**
 * Hunt 118 (from hunt 115): an `approve` list with a hole (`[, "refund"]`)
 * passed the settings check (`every` skips holes) and was refused only when a
 * turn's record was written (`record-invalid`, hunt 115). It is refused where
 * it is given, as any other malformed rule is (`settings-invalid`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { configure, FunctaiError, resetConfiguration } from "../../src/index.js";
import { approveProblem } from "../../src/approval/rule.js";

afterEach(() => resetConfiguration());

describe("an approve list with a hole", () => {
  // biome-ignore lint/suspicious/noSparseArray: the hole is the case
  const holed = [, "refund"] as unknown as string[];

  it("is a problem the rule check names", () => {
    expect(approveProblem(holed)).toMatch(/approve must be/);
    expect(approveProblem(["refund", "desk/pay"])).toBeUndefined();
  });

  it("configure refuses it (settings-invalid)", () => {
    let thrown: unknown;
    try {
      configure({ approve: holed });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(FunctaiError);
    expect((thrown as FunctaiError).code).toBe("settings-invalid");
  });
});
