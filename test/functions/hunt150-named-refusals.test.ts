/**
 * Hunt 150: refusals that did not say where. A misspelt `effects`
 * (`"read"`) was refused without naming the tool or program it was given
 * to, so among many definitions it had to be hunted for. A program's body
 * returning a value its output schema refuses was told by the first issue's
 * message alone, without its place (`items.0.id`) and without the others.
 * A value alone given to a function of several inputs (or none) was refused
 * with zod's "expected object, received string", naming neither the inputs
 * nor how to give them. An input that is not JSON (a BigInt default, a Map
 * through z.any()) was refused as "the input is not JSON (…)", without
 * saying which of several. Each now names the definition and the place,
 * with the same codes as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusal, refusalOf } from "../fixtures/refused.js";

describe("effects misspelt", () => {
  it("names the tool, or the program, it was given to", () => {
    const t = refusal(() => tool("refund", { description: "Refund.", input: {}, effects: "read" as never }, () => "ok"));
    expect(t.code).toBe("settings-invalid");
    expect(t.message).toBe('tool refund: effects must be "reads" or "changes", not "read"');
    const p = refusal(() => program("route", { description: "Route.", input: {}, effects: "change" as never }, () => "ok"));
    expect(p.code).toBe("settings-invalid");
    expect(p.message).toBe('program route: effects must be "reads" or "changes", not "change"');
  });
});

describe("a program's body returning what its output refuses", () => {
  it("says each issue at its place", async () => {
    const output = z.object({ total: z.number(), items: z.array(z.object({ id: z.string() })) });
    const tally = program("tally", { description: "Tally.", input: {}, output }, () => ({ total: "3", items: [{ id: 7 }] }) as never);
    const e = await refusalOf(() => tally({}));
    expect(e.code).toBe("output-invalid");
    expect(e.message).toMatch(/^program tally returned a value that is not its output: /);
    expect(e.message).toContain("total: Invalid input: expected number, received string");
    expect(e.message).toContain("items.0.id: Invalid input: expected string, received number");
  });

  it("a wrong value itself (not an object) is said as the output's", async () => {
    const count = program("count", { description: "Count.", input: {}, output: z.number() }, () => "three" as never);
    const e = await refusalOf(() => count({}));
    expect(e.code).toBe("output-invalid");
    expect(e.message).toBe("program count returned a value that is not its output: output: Invalid input: expected number, received string");
  });
});

describe("a value alone given to a function that is not of one input", () => {
  it("several inputs: refused naming them and how to give them, before any model call", async () => {
    const lm = scripted(["never"]);
    const quote = ai("quote", { description: "Quote.", input: { item: z.string(), qty: z.number() } });
    const e = await refusalOf(() => quote("a lamp" as never, { lm }));
    expect(e.code).toBe("input-invalid");
    expect(e.message).toBe(
      "quote: wrong input (a string): quote takes its 2 inputs (item, qty) as an object { item, qty }; a value alone is taken only by a function of one input. Nothing was sent to the model.",
    );
    // (the value itself is not repeated: it may be a person's words)
    expect(e.message).not.toContain("a lamp");
    const list = await refusalOf(() => quote(["a lamp", 2] as never, { lm }));
    expect(list.message).toMatch(/^quote: wrong input \(an array\): quote takes its 2 inputs/);
    const none = await refusalOf(() => quote(undefined as never, { lm }));
    expect(none.message).toMatch(/^quote: wrong input \(none given\): quote takes its 2 inputs/);
    expect(lm.requests).toHaveLength(0);
    // the object form is taken (a guard)
    expect(await quote({ item: "a lamp", qty: 2 }, { lm })).toBe("never");
  });

  it("no inputs: refused saying to call it with {}; {}, or nothing, is taken", async () => {
    const lm = scripted(["one", "two"]);
    const hello = ai("hello", { description: "Say hello.", input: {} });
    const e = await refusalOf(() => hello("hi" as never, { lm }));
    expect(e.code).toBe("input-invalid");
    expect(e.message).toBe("hello: wrong input (a string): hello takes no inputs: call hello({}). Nothing was sent to the model.");
    expect(lm.requests).toHaveLength(0);
    expect(await hello(undefined as never, { lm })).toBe("one");
    expect(await hello({}, { lm })).toBe("two");
  });
});

describe("an input that is not JSON", () => {
  it("is refused naming the input at fault, before any model call", async () => {
    const lm = scripted(["never"]);
    const note = ai("note", {
      description: "Note it.",
      input: { title: z.string(), body: z.string(), extra: z.any(), count: z.any().default(() => 1n) },
    });
    const big = await refusalOf(() => note({ title: "t", body: "b", extra: 1 }, { lm }));
    expect(big.code).toBe("input-invalid");
    expect(big.message).toBe("note: its input count is not JSON (Do not know how to serialize a BigInt). Nothing was sent to the model.");
    const map = await refusalOf(() => note({ title: "t", body: "b", extra: new Map([["k", 1]]), count: 2 }, { lm }));
    expect(map.message).toBe("note: its input extra is not JSON (a Map is written as {}). Nothing was sent to the model.");
    expect(lm.requests).toHaveLength(0);
  });
});
