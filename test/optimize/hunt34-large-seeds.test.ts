/**
 * Hunt 34: a seed is any whole number ≥ 0, but the sampler kept only its low 32 bits: seeds 0 and 2^32 (or a
 * timestamp-based seed and another 2^32 apart) picked the same rows, so two "different" samples were one. Seeds
 * below 2^32 pick what they always picked.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, labeledFewShot } from "../../src/index.js";

const answer = ai("answer", { description: "Answer.", input: { question: z.string() } });
const rows = Array.from({ length: 40 }, (_, i) => ({ question: `q${i}?`, result: `a${i}` }));
const picked = (seed: number) => labeledFewShot(answer, rows, { k: 5, seed }).demos.map((d) => d.inputs.question);

describe("labeledFewShot with seeds of more than 32 bits", () => {
  it("seeds 2^32 apart pick other rows", () => {
    for (const seed of [0, 1, 7]) {
      expect(picked(seed + 2 ** 32)).not.toEqual(picked(seed));
      expect(picked(seed + 2 ** 40)).not.toEqual(picked(seed));
    }
  });

  it("a seed picks the same rows every time", () => {
    expect(picked(2 ** 32 + 3)).toEqual(picked(2 ** 32 + 3));
  });
});
