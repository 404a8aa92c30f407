/**
 * A tool loop evaluated and optimized end to end on the scripted model: the
 * right answers need a tool; the bootstrapped examples keep their tool calls
 * and results, shown before the live question; compare() sees the gain.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { bootstrapFewShot, compare, evaluate, labeledFewShot, type Message } from "../../src/index.js";
import { lookups, rows, status, student, teacher } from "./desk.js";

beforeEach(() => {
  lookups.length = 0;
});

const roles = (messages: readonly Message[]): string[] =>
  messages.map((m) => (m.role === "assistant" && m.toolCalls?.length ? `assistant+${m.toolCalls.map((c) => c.name).join(",")}` : m.role));

describe("evaluate, bootstrap, evaluate again", () => {
  it("bootstraps examples that keep their tool calls, and the score goes up", async () => {
    const lm = student();
    const before = await evaluate(status.using({ lm }), rows);
    expect(before.score).toBe(0);
    expect(before.rows.every((r) => r.outputs?.result === "It is on its way." && r.error === null)).toBe(true);
    expect(lookups).toEqual([]);

    const coach = teacher();
    const better = await bootstrapFewShot(status, rows.slice(0, 4), { teacher: coach, maxBootstrapped: 2, maxLabeled: 3 });
    expect(status.demos).toEqual([]); // the original is unchanged
    expect(better.demos).toHaveLength(3);
    const [first, second, third] = better.demos;
    expect(first!.inputs).toEqual({ question: rows[0]!.question });
    expect(first!.outputs).toEqual({ result: rows[0]!.result });
    expect(first!.steps).toHaveLength(1);
    expect(first!.steps![0]!.toolCalls).toEqual([{ id: expect.any(String), name: "lookup_order", input: { order_id: "A-1042" } }]);
    expect(JSON.parse(first!.steps![0]!.results[0]!.content)).toEqual({ item: "kettle", status: "stuck at the carrier" });
    expect(second!.inputs).toEqual({ question: rows[1]!.question });
    expect(third!.steps).toBeUndefined(); // a labeled row fills the rest
    expect(lookups.slice(0, 2)).toEqual(["A-1042", "B-2210"]);

    const lookupsBefore = lookups.length;
    const lm2 = student();
    const after = await evaluate(better.using({ lm: lm2 }), rows);
    expect(after.score).toBe(1);
    // the examples' tools never ran again: one lookup per live row
    expect(lookups.length - lookupsBefore).toBe(rows.length);

    // the first request: system, the examples (tool call, tool result, answer), then the live question
    const firstRequest = lm2.requests[0]!;
    expect(roles(firstRequest.messages)).toEqual([
      "system",
      "user", "assistant+lookup_order", "tool", "assistant",
      "user", "assistant+lookup_order", "tool", "assistant",
      "user", "assistant",
      "user",
    ]);
    const call = firstRequest.messages[2] as Extract<Message, { role: "assistant" }>;
    const result = firstRequest.messages[3] as Extract<Message, { role: "tool" }>;
    expect(result.toolCallId).toBe(call.toolCalls![0]!.id);
    expect(firstRequest.messages[4]!.content).toBe("<result>\nstuck at the carrier\n</result>");
    expect(firstRequest.messages.at(-1)!.content).toMatch(/^<question>\nWhat is the status of /);
    // call ids are unique across examples
    const ids = firstRequest.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(new Set(ids).size).toBe(ids.length);

    const [delta] = compare(before, after);
    expect(delta).toMatchObject({ metric: "exact_match", before: 0, after: 1, diff: 1, better: rows.length, worse: 0, same: 0, n: rows.length });
  });

  it("labeledFewShot shows rows as examples, sampled with the seed", () => {
    const a = labeledFewShot(status, rows, { k: 3, seed: 7 });
    const b = labeledFewShot(status, rows, { k: 3, seed: 7 });
    const c = labeledFewShot(status, rows, { k: 3, seed: 8 });
    expect(a.demos).toHaveLength(3);
    expect(a.demos).toEqual(b.demos);
    expect(c.demos).not.toEqual(a.demos);
    for (const d of a.demos) expect(rows).toContainEqual({ question: d.inputs.question, result: d.outputs.result });
    expect(status.demos).toEqual([]);
  });

  it("models without native tools get the examples' calls and results as text, in the same places", async () => {
    const better = await bootstrapFewShot(status, rows.slice(0, 2), { teacher: teacher({ nativeTools: false }), maxBootstrapped: 1, maxLabeled: 1 });
    expect(better.demos[0]!.steps![0]!.toolCalls[0]!.name).toBe("lookup_order");
    const lm = student({ nativeTools: false });
    expect(await better("What is the status of C-3301?", { lm })).toBe("in the warehouse");
    const sent = lm.requests[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(sent[2]!.content).toBe('<tool_call>\n{"name":"lookup_order","input":{"order_id":"A-1042"}}\n</tool_call>');
    expect(sent[3]!.content).toMatch(/^<tool_result name="lookup_order" id="example_1_call_1_[0-9a-z]{8}">\n\{"item":"kettle"/);
    expect(sent[4]!.content).toBe("<result>\nstuck at the carrier\n</result>");
  });
});
