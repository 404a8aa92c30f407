/** fn.state() / fn.withState(): a saved state, reloaded, makes byte-identical requests; examples stay out of conversations. */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, labeledFewShot, memoryStore, type AIState } from "../../src/index.js";
import { lookups, rows, status, student, teacher } from "./desk.js";

describe("state", () => {
  it("a saved state reloaded (JSON round trip) makes byte-identical requests", async () => {
    const better = await bootstrapFewShot(status, rows, { teacher: teacher(), maxBootstrapped: 2, maxLabeled: 4, seed: 3 });
    const saved = JSON.stringify(better.state());
    const again = status.withState(JSON.parse(saved));
    expect(again.demos).toEqual(better.demos);
    expect(JSON.stringify(again.state())).toBe(saved);

    const a = student();
    const b = student();
    for (const row of rows) {
      await better(row.question, { lm: a });
      await again(row.question, { lm: b });
    }
    expect(a.requests.length).toBeGreaterThan(rows.length);
    expect(JSON.stringify(b.requests)).toBe(JSON.stringify(a.requests));
  });

  it("instructions are part of the state; using() keeps the examples; a wrong state is refused", () => {
    const reworded = status.withState({ instructions: "Answer in the tool's words.", demos: [] });
    expect(reworded.state()).toEqual({ instructions: "Answer in the tool's words.", demos: [] });
    expect(status.state().instructions).toBe("Say the order's shipping status, in the words the tool gives.");
    const shown = status.withState({ instructions: status.state().instructions, demos: [{ inputs: { question: "q" }, outputs: { result: "a" } }] });
    expect(shown.using({ temperature: 0 }).demos).toEqual(shown.demos);
    expect(() => status.withState({ instructions: 1 } as never)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(() => status.withState({ instructions: "x", demos: [{ inputs: {}, outputs: {} }] })).toThrow(/outputs needs result/);
    // the demos a function hands out are copies: changing them changes nothing
    const copy = shown.state();
    copy.demos[0]!.outputs.result = "changed";
    expect(shown.demos[0]!.outputs.result).toBe("a");
    expect(Object.isFrozen(shown.demos)).toBe(true);
  });

  it("a state whose examples call a tool the function does not have (renamed, removed) is refused, naming it", async () => {
    const better = await bootstrapFewShot(status, rows, { teacher: teacher(), maxBootstrapped: 2, maxLabeled: 4, seed: 3 });
    const saved = JSON.parse(JSON.stringify(better.state())) as AIState;
    const called = saved.demos.flatMap((d) => (d.steps ?? []).flatMap((s) => s.toolCalls.map((c) => c.name)));
    expect(called.length).toBeGreaterThan(0); // (the bootstrapped examples kept their tool calls)
    const renamed = JSON.parse(JSON.stringify(saved).replaceAll(`"name":"${called[0]}"`, '"name":"find_order_v1"')) as AIState;
    expect(() => status.withState(renamed)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/calls find_order_v1, which is not a tool of this function/) }));
    expect(status.withState(saved).demos).toEqual(better.demos); // its own state still loads
  });

  it("examples are never run again and never written to a conversation", async () => {
    const better = await bootstrapFewShot(status, rows.slice(0, 3), { teacher: teacher(), maxBootstrapped: 2, maxLabeled: 2 });
    lookups.length = 0;
    const store = memoryStore();
    const chat = better.using({ lm: student() }).conversation("sam", { store });
    expect(await chat.send("What is the status of F-6630?")).toBe("returned to sender");
    expect(await chat.send("What is the status of D-4410?")).toBe("out for delivery");
    expect(lookups).toEqual(["F-6630", "D-4410"]);
    const records = JSON.stringify(await store.read("sam"));
    expect(records).not.toContain("example_");
    expect(records).not.toContain("A-1042");
    expect(records).not.toContain("B-2210");
  });

  it("a labeled row may leave out an optional input: it is still an example", () => {
    const hinted = ai("hinted", { description: "Answer.", input: { question: z.string(), hint: z.string().optional() } });
    const shown = labeledFewShot(hinted, [{ question: "q", result: "a" }, { question: "r", hint: "h", result: "b" }, { hint: "no question", result: "c" }]);
    expect(shown.demos.map((d) => d.inputs)).toEqual(expect.arrayContaining([{ question: "q" }, { question: "r", hint: "h" }]));
    expect(shown.demos).toHaveLength(2);
  });

  it("a state made for another signature is refused, naming the example, never shown as if it fitted", () => {
    const triage = ai("triage", { description: "Sort.", input: { message: z.string() }, output: z.object({ label: z.enum(["billing", "shipping"]) }) });
    const foreign: AIState = { instructions: "Sort.", demos: [{ inputs: { question: "Where is A-1042?" }, outputs: { result: "stuck at the carrier" } }] };
    expect(() => triage.withState(foreign)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/example 1.*question/) }));
    const wrongType: AIState = { instructions: "Sort.", demos: [{ inputs: { message: 42 }, outputs: { result: { label: "billing" } } }] };
    expect(() => triage.withState(wrongType)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/example 1.*inputs\.message/) }));
    const fits: AIState = { instructions: "Sort.", demos: [{ inputs: { message: "charged twice" }, outputs: { result: { label: "billing" } } }] };
    expect(triage.withState(fits).state()).toEqual(fits);
  });
});
