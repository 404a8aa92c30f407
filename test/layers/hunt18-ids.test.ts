/**
 * Turn ids made within one millisecond sort in the order they were made
 * (ids.ts), also when the clock gives fractions of a millisecond: a
 * `Clock` built on `performance.now()` (monotonic, sub-millisecond), or a
 * fakeClock advanced by 0.5. Each fraction was taken for a millisecond of
 * its own, so the counter started again at random at every id.
 */
import { describe, expect, it } from "vitest";
import { newTurnId } from "../../src/ids.js";

describe("turn ids from a clock that gives fractions of a millisecond", () => {
  it("made within one millisecond, sort in the order they were made", () => {
    const at = 1_900_000_000_000; // (a millisecond no other test makes ids in)
    const ids = Array.from({ length: 200 }, (_, i) => newTurnId(at + i / 200));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });
});
