/** Hostile data given to withState and compare: refused (input-invalid), never misread. */
import { describe, expect, it } from "vitest";
import { compare, evaluate } from "../../src/index.js";
import { rows, status, teacher } from "./desk.js";

describe("withState and a JSON key __proto__", () => {
  it("an example whose inputs hold __proto__ is refused as not an input, not loaded without it", () => {
    const text = '{"instructions":"x","demos":[{"inputs":{"question":"q","__proto__":{"question":"other"}},"outputs":{"result":"r"}}]}';
    expect(() => status.withState(JSON.parse(text))).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("__proto__ is not an input") }));
  });

  // the call's input is one lookup_order refuses (no order_id; __proto__ is not an input of it): recorded as refused,
  // it is an example of a refusal (an example showing it as a call that worked is refused, hunt 75)
  it("__proto__ inside an answer or a tool call's input is data: kept as given, through a save and a load", () => {
    const text = '{"instructions":"x","demos":[{"inputs":{"question":"q"},"outputs":{"result":{"__proto__":{"x":1}}},' +
      '"steps":[{"text":"","toolCalls":[{"id":"c","name":"lookup_order","input":{"__proto__":1}}],"results":[{"id":"c","name":"lookup_order","content":"{}","isError":true}]}]}]}';
    const loaded = status.withState(JSON.parse(text));
    expect(JSON.stringify(loaded.state())).toBe(text);
  });
});

describe("compare with evaluations of other metrics", () => {
  it("no metric in common: input-invalid naming both, not an empty comparison", async () => {
    const a = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2));
    const b = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { metric: { short: (_row, p) => String(p.result).length < 40 } });
    expect(() => compare(a, b)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("before: exact_match; after: short") }));
  });

  it("some metrics in common: those are compared; no rows at all: an empty comparison", async () => {
    const a = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { metric: { exact: (row, p) => p.result === row.result, long: () => 0 } });
    const b = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { metric: { exact: (row, p) => p.result === row.result } });
    expect(compare(a, b).map((c) => c.metric)).toEqual(["exact"]);
    const none = await evaluate(status, [], { metric: () => 1 });
    expect(compare(none, none)).toEqual([]);
  });

  it("an evaluation without its metrics (cut down when saved): input-invalid, not a TypeError", async () => {
    const a = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 1));
    const { metrics: _, ...cut } = a;
    expect(() => compare(cut as never, a)).toThrow(expect.objectContaining({ code: "input-invalid", message: "compare takes two results of evaluate" }));
    expect(() => compare(a, cut as never)).toThrow(expect.objectContaining({ code: "input-invalid" }));
  });
});
