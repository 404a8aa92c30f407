/**
 * `readConversation` given `now` as a text: only an ISO 8601 instant with
 * its offset (the rule of a lease's `until`) is a time. `Date.parse` reads
 * other texts too ("1" as the year 2001, "2026-09-30T10:00:00" in the
 * machine's time zone): taken, a lease would read live or lapsed by accident.
 */
import { describe, expect, it } from "vitest";
import { ConversationReader, isFunctaiError, readConversation } from "../../src/index.js";

const AT = "2026-09-30T10:00:00.000Z";
const records = [
  { functai_conversation: 1, at: AT, seq: 1, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: {} },
  { functai_conversation: 1, at: AT, seq: 2, kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T10:00:30.000Z", attempt: 1 },
];

const refusal = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return "no error";
};

describe("readConversation: now as a text", () => {
  it.each([
    ["a bare number", "1"],
    ["an English date", "Sep 30 2026"],
    ["a time without its offset (local time)", "2026-09-30T10:00:00"],
    ["a day that does not exist", "2026-02-30T10:00:00Z"],
  ])("refuses %s with input-invalid", (_label, now) => {
    const e = refusal(() => readConversation(records, { now }));
    expect(isFunctaiError(e, "input-invalid"), String(e)).toBe(true);
    const r = refusal(() => new ConversationReader().add(records).state(now));
    expect(isFunctaiError(r, "input-invalid"), String(r)).toBe(true);
  });

  it("takes ISO instants with an offset, to the microsecond", () => {
    const state = (now: string) => readConversation(records, { now }).turns.get("t1")?.state;
    expect(state("2026-09-30T10:00:30.000000Z")).toBe("running"); // equal to until: not before now
    expect(state("2026-09-30T10:00:30.000001Z")).toBe("interrupted");
    expect(state("2026-09-30T12:00:30+02:00")).toBe("running");
    expect(state("2026-09-30T12:00:31+02:00")).toBe("interrupted");
  });
});
