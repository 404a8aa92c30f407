/**
 * Hunt 118 (left open by hunt 109): a definition a model cannot write is
 * refused naming the type as the user wrote it. `z.int64()` and
 * `z.uint64()` were refused as "z.bigint()", a type the user never wrote;
 * and a `z.record()` whose keys are `z.symbol()` was taken, though every
 * object a model writes has text keys, so every call was refused.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, resetConfiguration } from "../../src/index.js";
import { book, refusal } from "./fixtures/refusal.js";

beforeEach(() => resetConfiguration());


describe("a whole-number bigint format is named as written", () => {
  for (const [name, type] of [
    ["z.int64()", z.int64()],
    ["z.uint64()", z.uint64()],
  ] as const)
    it(`${name} in a tool's input`, () => {
      const e = refusal(() => book({ cents: type }));
      expect(e.message).toContain(`input cents is ${name}`);
      expect(e.message).not.toContain("z.bigint()");
      expect(e.message).toMatch(/z\.int\(\)/);
    });

  it("z.int64() as an AI function's answer", () => {
    const e = refusal(() => ai("count", { description: "Count.", input: { text: z.string() }, output: z.int64() }));
    expect(e.message).toContain("z.int64()");
    expect(e.message).not.toContain("z.bigint()");
  });

  it("a plain z.bigint() is still named z.bigint()", () => {
    expect(refusal(() => book({ cents: z.bigint() })).message).toContain("input cents is z.bigint()");
  });
});

describe("a record's keys", () => {
  it("z.symbol() keys: refused when the tool is made, naming the keys", () => {
    const e = refusal(() => book({ by: z.record(z.symbol(), z.string()) }));
    expect(e.message).toContain("input by (its keys) is z.symbol()");
    expect(e.message).toMatch(/z\.string\(\)/);
  });

  it("text, enum and literal keys are taken", () => {
    expect(() => book({ by: z.record(z.string(), z.number()) })).not.toThrow();
    expect(() => book({ by: z.record(z.enum(["a", "b"]), z.number()) })).not.toThrow();
    expect(() => book({ by: z.partialRecord(z.literal("x"), z.number()) })).not.toThrow();
  });

  it("values are still looked into after the keys", () => {
    expect(refusal(() => book({ by: z.record(z.string(), z.date()) })).message).toContain("input by.* is z.date()");
  });
});
