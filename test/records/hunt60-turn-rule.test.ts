/**
 * A turn record carries the approval rule the turn was sent with (`approve`,
 * ours: "changes", "all", "function" for an approve function, or a list of
 * tool names and paths), so whoever resumes the turn still asks a person.
 * A rule the reader cannot read (another writer's or a later version's
 * form, a damaged record) was taken for no rule at all: the resumed turn
 * ran changing tools nobody approved. A turn record whose rule cannot be
 * read is refused (skipped and reported, its conversation unreadable:
 * `store-corrupt`), never misread as "ask nobody".
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, isFunctaiError, memoryStore, parseRecord, readConversation, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const at = "2026-09-30T10:00:00.000000Z";
const turnRecord = (approve: unknown): Record<string, unknown> => ({
  functai_conversation: 1,
  kind: "turn",
  seq: 1,
  at,
  turn: "t1",
  parent: null,
  program: "v1",
  inputs: { message: "hi" },
  ...(approve === undefined ? {} : { approve }),
});

describe("a turn record's approval rule", () => {
  it("is read when it is a rule: changes, all, function (an approve function's turn), a list of names or paths, or none", () => {
    for (const approve of ["changes", "all", "function", ["refund", "desk/refund"], [], null, undefined]) {
      const state = readConversation([turnRecord(approve)], { now: at });
      expect(state.skipped, JSON.stringify(approve)).toEqual([]);
      expect(state.turns.get("t1")!.approve).toEqual(approve ?? null);
    }
  });

  it.each([[{ rule: "changes" }], [true], [1], ["ask"], [["refund", 7]], [""]])(
    "that cannot be read (%j) is refused, never read as no rule",
    (approve) => {
      expect(parseRecord(turnRecord(approve)).ok).toBe(false);
      const state = readConversation([turnRecord(approve)], { now: at });
      expect(state.skipped).toHaveLength(1);
      expect(state.skipped[0]!.error).toMatch(/turn record: approve/);
    },
  );

  it("a resumed turn whose record holds a rule it cannot read does not run a changing tool without asking", async () => {
    let refunds = 0;
    const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, () => {
      refunds += 1;
      return "refunded";
    });
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [refund] });
    const first = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }]);
    await expect(desk.conversation("sam", { store: first, lm, approve: "changes" }).send("Refund A-1, then B-2")).rejects.toBeInstanceOf(Waiting);

    // The same journal, its turn's rule written in a form this version does not know (a later writer's).
    const records = (await first.read("sam")).map((r) => (r.kind === "turn" ? { ...r, approve: { rule: "changes", since: 2 } } : r));
    const store = memoryStore();
    await store.append("sam", records);

    // A person approves refund A-1 from a handle that gives no rule; the model then refunds B-2 too.
    const later = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "B-2" } }] }, "Both refunded."]);
    let outcome: unknown;
    try {
      const [turn] = await desk.conversation("sam", { store, lm: later }).turns();
      outcome = await turn!.approve({ by: "maria" });
    } catch (e) {
      outcome = e;
    }
    // refused as damage, or B-2 asked about: never a refund nobody approved
    if (isFunctaiError(outcome, "store-corrupt")) expect(refunds).toBe(0);
    else {
      expect(outcome).toBeInstanceOf(Waiting);
      expect(refunds).toBe(1);
    }
  });
});
