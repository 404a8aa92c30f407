/**
 * Hunt 115: an approval is named by its call's site, invocation and plugin
 * (DESIGN.md, "The journal"). The three were joined with ":" into one key,
 * so a record naming another place could pass for the answer to a question
 * it never named: site "desk#1:1", invocation 2 (the built-in approval) and
 * site "desk#1", invocation 1, plugin "2" both made "desk#1:1:2". Our sites
 * hold no ":" (names are letters, digits, _ and -), but a record's site is
 * any text: a damaged or foreign record must not answer a question.
 */
import { describe, expect, it } from "vitest";
import { Journal } from "../../src/engine/journal.js";
import { approvalKey } from "../../src/records/keys.js";
import { readConversation } from "../../src/records/read-conversation.js";

const base = { functai_conversation: 1 as const, at: "2026-09-30T10:00:00.000Z" };
const turn = { ...base, seq: 1, kind: "turn", turn: "t1", parent: null, program: "p", inputs: {} };
const asked = {
  ...base,
  seq: 2,
  kind: "waiting",
  turn: "t1",
  approvals: [{ site: "desk#1", invocation: 1, path: "desk/a", name: "a", plugin: "2" }],
};
/** Names site "desk#1:1", invocation 2, the built-in approval: no question the waiting record asked. */
const elsewhere = {
  ...base,
  seq: 3,
  kind: "approval",
  turn: "t1",
  site: "desk#1:1",
  invocation: 2,
  path: "desk/a",
  verdict: "yes",
  by: "x",
  reason: null,
};

describe("hunt 115: an approval record answers only the question it names", () => {
  it("one naming another site and invocation leaves the question unanswered (reader and journal)", () => {
    const records = [turn, asked, elsewhere];
    const state = readConversation(records, { now: 0 });
    // a person's answer to no question asked is refused outright since hunt 146 (it is listed, and answers nothing)
    expect(state.skipped.map((s) => s.seq)).toEqual([3]);
    const info = state.turns.get("t1")!;
    expect(info.state).toBe("waiting");
    expect(info.waiting.map((w) => [w.site, w.invocation, w.plugin])).toEqual([["desk#1", 1, "2"]]);
    const journal = new Journal({ turn: "t1", attempt: 1, records });
    expect(journal.answer("desk#1", 1, "2", "desk/a")).toBeUndefined();
  });

  it("different names give different keys; our own ids are as before", () => {
    expect(approvalKey("desk#1:1", 2)).not.toBe(approvalKey("desk#1", 1, "2"));
    expect(approvalKey("a:1", 2, "b")).not.toBe(approvalKey("a", 1, "2:b"));
    expect(approvalKey("a%3A1", 2)).not.toBe(approvalKey("a:1", 2));
    expect(approvalKey("desk#1/answer#2", 3)).toBe("desk#1/answer#2:3");
    expect(approvalKey("desk#1", 2, "vip:1")).toBe("desk#1:2:vip:1");
  });
});
