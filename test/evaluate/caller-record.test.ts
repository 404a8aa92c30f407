/** A turn record's `caller`: the schema and the readers' fast check agree on it, and a wrong one is refused when written. */
import { describe, expect, it } from "vitest";
import { checkNewRecord, parseRecord } from "../../src/index.js";
import { readRecord } from "../../src/records/schema.js";

const turn = (caller: unknown) => ({ functai_conversation: 1, kind: "turn", at: "2026-11-30T20:00:00Z", seq: 2, turn: "t1", parent: null, program: "v1", inputs: {}, caller });

describe("turn record: caller", () => {
  const good = [{ evaluation: "ev-1" }, { optimization: "opt-1" }, undefined];
  const bad = [null, "ev-1", {}, { evaluation: "" }, { evaluation: 1 }, { run: "x" }, [], { optimization: null }];

  it("reads { evaluation } and { optimization }; refuses anything else", () => {
    for (const c of good) expect(parseRecord(turn(c)).ok, JSON.stringify(c)).toBe(true);
    for (const c of bad) expect(parseRecord(turn(c)).ok, JSON.stringify(c)).toBe(false);
  });

  it("the fast reader agrees with the schema, value for value", () => {
    for (const c of [...good, ...bad]) expect(readRecord(turn(c))).toEqual(parseRecord(turn(c)));
  });

  it("a writer's record with a wrong caller is refused before it is written", () => {
    const { seq: _seq, ...fresh } = turn({ evaluation: "" });
    expect(checkNewRecord(fresh).ok).toBe(false);
    const { seq: _s, ...ok } = turn({ evaluation: "ev-1" });
    expect(checkNewRecord(ok).ok).toBe(true);
  });
});
