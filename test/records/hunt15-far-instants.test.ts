/**
 * Hunt 15: a lease's `until` against `now`, for instants far from 1970.
 *
 * DESIGN ("A turn's state"): "a last lease whose `until` is not before now
 * means `running`; else `interrupted`". Both are instants to the
 * microsecond, and the schema takes any year to 9999. Microseconds since
 * the epoch stop being exact doubles after 2^53 µs (mid-2255): a reader
 * comparing them as one number reads an `until` a few microseconds before
 * `now` as equal to it, and the lapsed lease as live.
 */
import { describe, expect, it } from "vitest";
import { readConversation } from "../../src/index.js";

const AT = "2026-09-30T10:00:00.000Z";
const journal = (until: string) => [
  { functai_conversation: 1, at: AT, seq: 1, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: {} },
  { functai_conversation: 1, at: AT, seq: 2, kind: "lease", turn: "t1", holder: "h", until, attempt: 1 },
];
const stateAt = (until: string, now: Date | string | number) => readConversation(journal(until), { now }).turns.get("t1")?.state;

describe("readConversation: until vs now, far from 1970", () => {
  it("a lease that ended a microsecond before now is interrupted, in any year", () => {
    expect(stateAt("2300-01-01T00:00:00.000000Z", "2300-01-01T00:00:00.000001Z")).toBe("interrupted");
    expect(stateAt("9999-12-31T23:59:59.999000Z", "9999-12-31T23:59:59.999001Z")).toBe("interrupted");
    expect(stateAt("9999-12-31T23:59:59.999970Z", "9999-12-31T23:59:59.999999Z")).toBe("interrupted");
    expect(stateAt("2300-01-01T02:00:00.000000+02:00", "2300-01-01T00:00:00.000001Z")).toBe("interrupted");
    // a `now` in milliseconds with a fraction of one: about 4 µs after the lease's end
    expect(stateAt("2300-01-01T00:00:00.000000Z", Date.parse("2300-01-01T00:00:00.000Z") + 0.004)).toBe("interrupted");
  });

  it("a lease that ends a microsecond after now, or at now exactly, runs, in any year", () => {
    expect(stateAt("2300-01-01T00:00:00.000001Z", "2300-01-01T00:00:00.000000Z")).toBe("running");
    expect(stateAt("9999-12-31T23:59:59.999001Z", "9999-12-31T23:59:59.999000Z")).toBe("running");
    expect(stateAt("9999-12-31T23:59:59.999001Z", "9999-12-31T23:59:59.999001Z")).toBe("running");
    expect(stateAt("9999-12-31T23:59:59.999001Z", new Date("9999-12-31T23:59:59.999Z"))).toBe("running");
    expect(stateAt("2300-01-01T02:00:00.000001+02:00", "2300-01-01T00:00:00.000001Z")).toBe("running");
  });

  it("the same before 1970", () => {
    expect(stateAt("1969-12-31T23:59:59.999500Z", "1969-12-31T23:59:59.999501Z")).toBe("interrupted");
    expect(stateAt("1969-12-31T23:59:59.999501Z", "1969-12-31T23:59:59.999501Z")).toBe("running");
    expect(stateAt("0001-01-01T00:00:00.000001Z", "0001-01-01T00:00:00.000002Z")).toBe("interrupted");
  });
});

describe("readConversation: until vs now, past the microsecond", () => {
  // The schema takes any number of fractional digits (Go's RFC 3339 writes nine): `until` is before `now` when
  // it is before it by a nanosecond too, and reads `interrupted`.
  it("a lease that ended a nanosecond before now is interrupted", () => {
    expect(stateAt("2026-09-30T10:00:00.000000000Z", "2026-09-30T10:00:00.000000001Z")).toBe("interrupted");
    expect(stateAt("2026-09-30T10:00:00.000001Z", "2026-09-30T10:00:00.0000010001Z")).toBe("interrupted");
    expect(stateAt("2026-09-30T10:00:00.123456789Z", "2026-09-30T12:00:00.12345679+02:00")).toBe("interrupted");
  });

  it("a lease that ends a nanosecond after now, or at now exactly, runs", () => {
    expect(stateAt("2026-09-30T10:00:00.000000001Z", "2026-09-30T10:00:00.000000000Z")).toBe("running");
    expect(stateAt("2026-09-30T10:00:00.000000001Z", "2026-09-30T10:00:00.000000001Z")).toBe("running");
    expect(stateAt("2026-09-30T10:00:00.0000010Z", "2026-09-30T10:00:00.000001Z")).toBe("running");
    expect(stateAt("2026-09-30T10:00:00.1Z", "2026-09-30T10:00:00.100000000Z")).toBe("running");
    expect(stateAt("2026-09-30T10:00:00.100000001Z", new Date("2026-09-30T10:00:00.100Z"))).toBe("running");
  });
});
