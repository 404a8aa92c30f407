/**
 * Request fingerprints name recorded replies in journals: `digest` must give
 * the same strings in every version. These were made by the first version
 * (`hash53(text, seed).toString(36).padStart(11, "0")`, seeds 1 and 2).
 */
import { describe, expect, it } from "vitest";
import { digest } from "../../src/lm/fingerprint.js";

describe("digest", () => {
  it("gives the strings journals already hold", () => {
    const golden: [string, string][] = [
      ["", "26c8wzs8fs10kz98hrb9of"],
      ["a", "1guuo3poulb0259fwfz8om"],
      ["hello world", "002e9empmph1489lnztlvd"],
      ["é😀\u0000", "1fi7t3w6uzz1zasozpadh1"],
      ['{"role":"tool","content":"x"}', "02z3d8mcl3n0e9nftcoof0"],
      ["x".repeat(1000), "1vzp04amdkl24wufs4wbks"],
    ];
    for (const [text, want] of golden) expect(digest(text)).toBe(want);
  });
});
