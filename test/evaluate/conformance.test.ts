/** The published score vectors (test/conformance/scores, see SOURCE.md): exactMatch and meanRange within 1e-12. */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exactMatch, meanRange } from "../../src/index.js";

const dir = new URL("../conformance/scores/", import.meta.url);
const cases = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((file) => ({ file, ...(JSON.parse(readFileSync(new URL(file, dir), "utf8")) as Vector) }));

interface Vector {
  description: string;
  kind: "interval" | "match";
  values?: number[];
  answers?: Record<string, unknown>;
  prediction?: Record<string, unknown>;
  expect: Record<string, number | null>;
}

const close = (got: number | null, want: number | null): void => {
  if (want === null) expect(got).toBeNull();
  else {
    expect(got).not.toBeNull();
    expect(Math.abs(got! - want)).toBeLessThanOrEqual(1e-12);
  }
};

describe("conformance: scores", () => {
  it("holds every published vector (12 files, both kinds)", () => {
    expect(cases.length).toBe(12);
    expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(["interval", "match"]));
  });

  for (const c of cases) {
    it(`${c.file}: ${String(c.description)}`, () => {
      if (c.kind === "interval") {
        const want = c.expect as { mean: number | null; low: number | null; high: number | null };
        const got = meanRange(c.values!);
        close(got.mean, want.mean);
        close(got.low, want.low);
        close(got.high, want.high);
      } else {
        expect(c.kind).toBe("match");
        const got = exactMatch(c.answers!, c.prediction!);
        expect(got).toEqual(c.expect);
      }
    });
  }
});
