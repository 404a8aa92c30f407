/**
 * `isoAt`, the time every record is stamped with: a clock's time that no
 * record can hold (NaN, past the year 275760, not a number) is refused
 * with a FunctaiError, never a bare RangeError from deep inside a write.
 */
import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import { isoAt } from "../../src/runtime/clock.js";
import { errorOf } from "../fixtures/refused.js";


describe("isoAt", () => {
  it.each([["NaN", Number.NaN], ["1e20", 1e20], ["Infinity", Number.POSITIVE_INFINITY], ["a text", "2026" as never]])("refuses %s with input-invalid", (_label, ms) => {
    const e = errorOf(() => isoAt(ms));
    expect(isFunctaiError(e, "input-invalid"), String(e)).toBe(true);
    const m = errorOf(() => makeRecord("stop", { turn: "t1" }, ms));
    expect(isFunctaiError(m, "input-invalid"), String(m)).toBe(true);
  });

  it("writes every instant a Date holds, and the same text for the same millisecond", () => {
    expect(isoAt(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(isoAt(8.64e15)).toBe("+275760-09-13T00:00:00.000Z");
    expect(isoAt(1_764_633_600_123)).toBe("2025-12-02T00:00:00.123Z");
    expect(isoAt(1_764_633_600_123)).toBe("2025-12-02T00:00:00.123Z");
  });
});
