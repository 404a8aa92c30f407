/**
 * Hunt 82: `evaluate(fn, rows, { store })` keeps each row's call as a one-turn conversation, and reads the
 * conversation's turns after the send to name the row's turn. When that read failed (a store that went away for a
 * moment just after the turn ended: a database's dropped connection, a full disk's read error), the row was told
 * failed with the store's error: its paid, right answer was dropped (`outputs: null`) and it scored 0. The answer
 * is the row's; only the turn's id is not known then (`turn: null`).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, evaluate, FunctaiError, memoryStore, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** A memory store whose reads of a conversation fail once a turn of it ended (its `ended` record appended). */
function readsFailAfterTheEnd(): Store {
  const inner = memoryStore();
  const ended = new Set<string>();
  const guard = (conversation: string): void => {
    if (ended.has(conversation)) throw new FunctaiError("store-io", "the store went away");
  };
  return {
    append: async (conversation, records, opts) => {
      const n = await inner.append(conversation, records, opts);
      if (records.some((r) => (r as { kind?: unknown }).kind === "ended")) ended.add(conversation);
      return n;
    },
    read: async (conversation, after) => {
      guard(conversation);
      return inner.read(conversation, after);
    },
    durability: "memory",
  };
}

describe("a row whose turn answered, its store failing to read after", () => {
  it("keeps its answer and its score (turn unknown), paid once", async () => {
    const lm = scripted(["<result>\nStuck at the carrier.\n</result>", "<result>\nDelivered.\n</result>"]);
    const answer = ai("answer", { description: "Answer the question.", input: { question: z.string() }, lm });
    const ev = await evaluate(
      answer,
      [
        { question: "Where is A-1042?", result: "Stuck at the carrier." },
        { question: "Where is B-2210?", result: "Lost." },
      ],
      { store: readsFailAfterTheEnd(), concurrency: 1 },
    );
    expect(ev.rows.map((r) => r.error)).toEqual([null, null]);
    expect(ev.rows.map((r) => r.outputs)).toEqual([{ result: "Stuck at the carrier." }, { result: "Delivered." }]);
    expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0]);
    expect(ev.rows.map((r) => r.turn)).toEqual([null, null]);
    expect(ev.score).toBe(0.5);
    expect(lm.requests).toHaveLength(2);
  });
});
