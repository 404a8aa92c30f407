/** Wrong arguments are refused (input-invalid) before any model call, never read as something else. */
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, compare, evaluate, exactMatch, meanRange } from "../../src/index.js";
import { rows, status, teacher } from "./desk.js";

describe("rows whose inputs are wrong", () => {
  it("a row missing an input column, or holding a wrong type, is refused up front, naming the row", async () => {
    const lm = teacher();
    const misspelt = [rows[0]!, { qestion: "What is the status of B-2210?", result: "delivered" }, rows[2]!];
    await expect(evaluate(status.using({ lm }), misspelt)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2 .*question/) });
    const typed = [rows[0]!, rows[1]!, { question: 3301, result: "in the warehouse" }];
    await expect(evaluate(status.using({ lm }), typed, { metric: () => 1 })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 3 .*question/) });
    await expect(bootstrapFewShot(status, misspelt, { teacher: lm })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2 /) });
    expect(lm.requests).toHaveLength(0);
  });

  it("extra columns are only data: the call gets the inputs alone", async () => {
    const lm = teacher();
    const ev = await evaluate(status.using({ lm }), [{ ...rows[0]!, note: "from the CSV", id: 7 }]);
    expect(ev.score).toBe(1);
    expect(lm.requests[0]!.messages.at(-1)!.content).toBe(`<question>\n${rows[0]!.question}\n</question>`);
  });
});

describe("exactMatch and meanRange take what they say", () => {
  it("exactMatch takes records of outputs: plain values are refused, not compared letter by letter", () => {
    expect(() => exactMatch("new york" as never, "New York" as never)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(() => exactMatch(["a"] as never, ["a"] as never)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(() => exactMatch({ result: "a" }, null as never)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(exactMatch({ result: "a" }, {})).toEqual({ exact_match: 0 });
  });

  it("meanRange refuses what is not a list of finite numbers instead of answering NaN", () => {
    for (const values of [[Number.NaN, 1], [1, Number.POSITIVE_INFINITY], [1, "1"], "0101", null]) {
      expect(() => meanRange(values as never), JSON.stringify(values)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    }
    expect(meanRange([0.5, 0.5, 0.5])).toEqual({ mean: 0.5, low: 0.5, high: 0.5 });
  });
});

describe("compare pairs a row with itself", () => {
  it("refuses evaluations of other rows (the same count, other questions)", async () => {
    const a = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 3));
    const b = await evaluate(status.using({ lm: teacher() }), rows.slice(3, 6));
    expect(() => compare(a, b)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/row 1/) }));
    // the same rows, read again (copies, as from a file), pair
    const again = await evaluate(status.using({ lm: teacher() }), JSON.parse(JSON.stringify(rows.slice(0, 3))));
    expect(compare(a, again)[0]).toMatchObject({ metric: "exact_match", diff: 0, same: 3, n: 3 });
  });
});
