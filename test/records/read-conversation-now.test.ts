/**
 * `readConversation` and `ConversationReader.state` given a `now` that is
 * no time: refused with a FunctaiError (`input-invalid`), as every error of
 * this package is, never read as a time that makes every lease live or lapsed.
 * A text is a time only as an ISO 8601 instant with its offset (the rule of a
 * lease's `until`): `Date.parse` reads other texts too ("1" as the year 2001,
 * "2026-09-30T10:00:00" in the machine's time zone), and one `now` would read
 * a lease live on one machine and lapsed on another.
 */
import { describe, expect, it } from "vitest";
import { ConversationReader, isFunctaiError, readConversation } from "../../src/index.js";
import { errorOf as refusal } from "../fixtures/refused.js";

const AT = "2026-09-30T10:00:00.000Z";
const records = [
  { functai_conversation: 1, at: AT, seq: 1, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: {} },
  { functai_conversation: 1, at: AT, seq: 2, kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T10:00:30.000Z", attempt: 1 },
];


describe("readConversation: now", () => {
  it.each([
    ["a text that is no time", "soon"],
    ["NaN", Number.NaN],
    ["an invalid Date", new Date("nope")],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["null", null],
    ["an object", {}],
    ["a bare number as text", "1"],
    ["an English date", "Sep 30 2026"],
    ["a time without its offset (local time)", "2026-09-30T10:00:00"],
    ["a day that does not exist", "2026-02-30T10:00:00Z"],
  ])("refuses %s with input-invalid", (_label, now) => {
    const e = refusal(() => readConversation(records, { now: now as never }));
    expect(isFunctaiError(e, "input-invalid"), String(e)).toBe(true);
    const r = refusal(() => new ConversationReader().add(records).state(now as never));
    expect(isFunctaiError(r, "input-invalid"), String(r)).toBe(true);
  });

  it("takes a Date, an ISO text or milliseconds", () => {
    for (const now of [new Date(AT), AT, Date.parse(AT)]) expect(readConversation(records, { now }).turns.get("t1")?.state).toBe("running");
  });

  it("takes ISO instants with an offset, to the microsecond", () => {
    const state = (now: string) => readConversation(records, { now }).turns.get("t1")?.state;
    expect(state("2026-09-30T10:00:30.000000Z")).toBe("running"); // equal to until: not before now
    expect(state("2026-09-30T10:00:30.000001Z")).toBe("interrupted");
    expect(state("2026-09-30T12:00:30+02:00")).toBe("running");
    expect(state("2026-09-30T12:00:31+02:00")).toBe("interrupted");
  });
});
