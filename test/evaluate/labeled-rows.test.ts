/** labeledFewShot refuses what it cannot use as labeledFewShot's own error, naming the row, as evaluate does. */
import { describe, expect, it } from "vitest";
import { labeledFewShot } from "../../src/index.js";
import { status } from "./desk.js";

describe("labeledFewShot's arguments", () => {
  it("null or a string as options: input-invalid, not a TypeError nor taken as no options", () => {
    for (const options of [null, "fast", [1]])
      expect(() => labeledFewShot(status, [{ question: "q", result: "r" }], options as never)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("options are an object") }));
  });

  it("a row of wrong inputs is refused naming the row, not as an example of a state saved from another function", () => {
    // row 3 is wrong; sampled, it would have been some other "example n"
    const rows = [{ question: "a", result: "1" }, { question: "b", result: "2" }, { question: 42, result: "3" }];
    for (const seed of [0, 1, 2])
      expect(() => labeledFewShot(status, rows, { seed })).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/^status: row 3 has wrong inputs \(question: .*\)/) }));
  });

  it("a row without its required input is still left out, not refused", () => {
    const shown = labeledFewShot(status, [{ result: "1" }, { question: "b", result: "2" }]);
    expect(shown.demos).toEqual([{ inputs: { question: "b" }, outputs: { result: "2" } }]);
  });

  it("an answer JSON cannot keep (a BigInt) names its row", () => {
    expect(() => labeledFewShot(status, [{ question: "a", result: "1" }, { question: "b", result: 2n }])).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/^status: row 2 is not JSON/) }));
  });
});

describe("bootstrapFewShot's labeled rows", () => {
  it("an answer JSON cannot keep is refused naming its row before any model call, not after every run", async () => {
    const { bootstrapFewShot } = await import("../../src/index.js");
    const { teacher } = await import("./desk.js");
    const lm = teacher();
    const rows = [{ question: "What is the status of A-1042?", result: "stuck at the carrier" }, { question: "b", result: 2n }];
    await expect(bootstrapFewShot(status, rows, { teacher: lm, metric: () => 0 })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/^status: row 2 is not JSON/) });
    expect(lm.requests).toHaveLength(0);
  });
});
