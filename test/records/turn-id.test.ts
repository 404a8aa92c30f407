import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newTurnId } from "../../src/ids.js";

/** RFC 9562 UUID version 7: 48 bits of milliseconds, version 7, variant 10, random bits. */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("turn ids", () => {
  it("are UUID version 7 whose first 48 bits are the time in milliseconds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (now) => {
        const id = newTurnId(now);
        expect(id).toMatch(UUID_V7);
        expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
      }),
      { numRuns: 2000 },
    );
  });

  it("sort by the time they were made, and differ within one millisecond", () => {
    const at = 1_764_633_600_000;
    const ids = [newTurnId(at + 1), newTurnId(at), newTurnId(at + 256), newTurnId(at), newTurnId(at + 65_536)];
    const sorted = [...ids].sort();
    expect(new Set(sorted.slice(0, 2))).toEqual(new Set([ids[1], ids[3]]));
    expect(sorted.slice(2)).toEqual([ids[0], ids[2], ids[4]]);
    expect(new Set(Array.from({ length: 1000 }, () => newTurnId(at))).size).toBe(1000);
  });

  it("made here within one millisecond, sort in the order they were made", () => {
    // (milliseconds no other test here makes ids in: the counter of one another test left running would have less room)
    for (const at of [1_800_000_000_000, 1_800_000_000_001, 3]) {
      const ids = Array.from({ length: 2048 }, () => newTurnId(at));
      expect([...ids].sort()).toEqual(ids);
    }
    // past the counter's room (at least 2,048 a millisecond): still UUIDs of that millisecond, all different
    const many = Array.from({ length: 5000 }, () => newTurnId(7));
    expect(new Set(many).size).toBe(5000);
    for (const id of many) expect(id.slice(0, 13)).toBe(newTurnId(7).slice(0, 13));
  });

  it("carry random bits in every position but the version and variant", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      // each in a millisecond of its own: the 12 bits after the version start at random below 2,048 (a counter after)
      const hex = newTurnId(i).replaceAll("-", "");
      for (let k = 13; k < 32; k++) if (k !== 16) seen.add(`${k}:${hex[k]}`);
    }
    // 18 free hex digits (the 13th is the version; the 17th carries the variant): each took all 16 values but the
    // 14th, the counter's top digit, which starts below 8
    expect(seen.size).toBe(17 * 16 + 8);
  });
});
