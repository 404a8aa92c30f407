import { describe, expect, it } from "vitest";
import { approvalKey, callerPath, pluginOf, toolKey, unfinishedOf } from "../../src/records/keys.js";
import { readConversation } from "../../src/records/read-conversation.js";
import { Journal } from "../../src/engine/journal.js";

const base = { functai_conversation: 1 as const, at: "2026-09-30T10:00:00.000Z" };

describe("identity keys: one rule for the journal and the reader", () => {
  it("absent, null, empty and \"approval\" are the built-in approval; \"approve\" is a plugin like any other", () => {
    expect([undefined, null, "", "approval"].map(pluginOf)).toEqual([undefined, undefined, undefined, undefined]);
    expect(pluginOf("approve")).toBe("approve");
    expect(approvalKey("desk#1", 2, "approval")).toBe("desk#1:2");
    expect(approvalKey("desk#1", 2, null)).toBe("desk#1:2");
    expect(approvalKey("desk#1", 2, "approve")).toBe("desk#1:2:approve");
    expect(toolKey("desk#1", 3)).toBe("desk#1:3");
    expect(callerPath("desk/answer/refund")).toBe("desk/answer");
    expect(callerPath("desk")).toBe("desk");
  });

  it("the reader and the journal agree on which answer a record gives", () => {
    const records = [
      { ...base, seq: 1, kind: "turn", turn: "t1", parent: null, program: "p", inputs: {} },
      { ...base, seq: 2, kind: "waiting", turn: "t1", approvals: [
        { site: "desk#1", invocation: 1, path: "desk/a", name: "a" },
        { site: "desk#1", invocation: 1, path: "desk/a", name: "a", plugin: "approve" },
      ] },
      { ...base, seq: 3, kind: "approval", turn: "t1", site: "desk#1", invocation: 1, plugin: "approval", path: "desk/a", verdict: "yes", by: null, reason: null },
    ];
    const info = readConversation(records, { now: 0 }).turns.get("t1")!;
    // the built-in approval is answered; the plugin named "approve" still waits
    expect(info.waiting.map((w) => w.plugin ?? null)).toEqual(["approve"]);
    const journal = new Journal({ turn: "t1", attempt: 1, records });
    expect(journal.answer("desk#1", 1, null, "desk/a")?.verdict).toBe("yes");
    expect(journal.answer("desk#1", 1, "approve", "desk/a")).toBeUndefined();
    // given to desk/a: never taken by another call at its place (a reply sent anew after a deploy calls desk/b there)
    expect(journal.answer("desk#1", 1, null, "desk/b")).toBeUndefined();
  });

  it("the reader and the journal agree that an answer given before a place was asked again does not answer it", () => {
    const asked = (seq: number, input: unknown) => ({
      ...base, seq, kind: "waiting", turn: "t1", approvals: [{ site: "desk#1", invocation: 1, path: "desk/a", name: "a", input }],
    });
    const yes = (seq: number) => ({ ...base, seq, kind: "approval", turn: "t1", site: "desk#1", invocation: 1, path: "desk/a", verdict: "yes", by: "maria", reason: null });
    const turn = { ...base, seq: 1, kind: "turn", turn: "t1", parent: null, program: "p", inputs: {} };
    // asked about { n: 1 }, answered; then (its request sent anew) the model's call there is { n: 2 }: asked again
    const again = [turn, asked(2, { n: 1 }), yes(3), asked(4, { n: 2 })];
    expect(readConversation(again, { now: 0 }).turns.get("t1")!.waiting.map((w) => w.input)).toEqual([{ n: 2 }]);
    const journal = new Journal({ turn: "t1", attempt: 1, records: again });
    expect(journal.answer("desk#1", 1, null, "desk/a")).toBeUndefined();
    expect(journal.shownInput("desk#1", 1, null)).toEqual({ input: { n: 2 } });
    // answered after it was asked again: that answer stands, for the input shown then
    const answered = new Journal({ turn: "t1", attempt: 1, records: [...again, yes(5)] });
    expect(answered.answer("desk#1", 1, null, "desk/a")?.by).toBe("maria");
  });

  it("an unfinished tool is shown with its path (its name when none) and its input (null when none)", () => {
    const tool = { ...base, seq: 4, kind: "tool" as const, turn: "t1", site: "desk#1", invocation: 2, name: "refund", state: "started" as const };
    expect(unfinishedOf({ unfinished: [tool] })).toEqual([{ invocation: 2, name: "refund", input: null, path: "refund", site: "desk#1" }]);
  });
});
