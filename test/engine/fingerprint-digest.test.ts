/**
 * Request fingerprints name recorded replies in journals: `digest` must give
 * the same strings in every version. These were made by the first version
 * (`hash53(text, seed).toString(36).padStart(11, "0")`, seeds 1 and 2).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digest } from "../../src/lm/digest.js";

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

describe("digest, against the first version's code", () => {
  // the first version, written plainly: what journals were keyed with
  const hash53 = (text: string, seed: number): number => {
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  };
  const first = (text: string): string => hash53(text, 1).toString(36).padStart(11, "0") + hash53(text, 2).toString(36).padStart(11, "0");

  it("gives the same string for any text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
      expect(digest(text)).toBe(first(text));
    }), { numRuns: 3000 });
  });
});
