/**
 * Schemas with an async refinement. functai reads inputs and outputs
 * synchronously (a call's input before anything is sent, a tool call's
 * before it is shown, asked or run, a reply's answer as it is read), and
 * zod's synchronous parse throws on the promise such a check returns and
 * drops it: when it rejected (a lookup that failed: the very thing an async
 * refinement does), nobody handled the rejection, which ends a Node process,
 * after the call was refused with zod's own advice, "Use .parseAsync()
 * instead", which a caller cannot follow. Now the promise's end is handled
 * and the refusal says the schema is async and what to do
 * (src/schema-read.ts), wherever a user's schema is read.
 * (First found by hunt 27, whose branch was not landed.)
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, resetConfiguration, tool } from "../../src/index.js";
import { readWith } from "../../src/schema-read.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

/** A string check that waits, then fails as a lookup that failed does. */
const lookedUp = () =>
  z.string().refine(async () => {
    await new Promise((r) => setTimeout(r, 5));
    throw new Error("the lookup failed");
  });

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);
beforeEach(() => {
  resetConfiguration();
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => void process.off("unhandledRejection", onUnhandled));

/** Long enough for the refinements above to have ended, and a rejection nobody handled to be reported. */
const settled = () => new Promise((r) => setTimeout(r, 40));

const ASYNC = /schema is async.*synchronous/;

describe("a schema with an async refinement", () => {
  it("an AI function's input: input-invalid saying the schema is async, nothing sent, and no unhandled rejection", async () => {
    const lm = scripted(["never"]);
    const answer = ai("answer", { description: "Answer.", input: { id: lookedUp() } });
    const refused = await answer("A-1", { lm }).catch((e: unknown) => e);
    await settled();
    expect(unhandled).toEqual([]);
    expect(refused).toMatchObject({ code: "input-invalid", message: expect.stringMatching(ASYNC) });
    expect((refused as Error).message).not.toMatch(/parseAsync/);
    expect(lm.requests).toHaveLength(0);
  });

  it("an AI function's output: output-invalid saying the schema is async, the model not asked again, and no unhandled rejection", async () => {
    const lm = scripted(['<result>"A-1"</result>', '<result>"A-2"</result>']);
    const answer = ai("answer", { description: "Answer.", input: { q: z.string() }, output: lookedUp() });
    const refused = await answer("which?", { lm }).catch((e: unknown) => e);
    await settled();
    expect(unhandled).toEqual([]);
    expect(refused).toMatchObject({ code: "output-invalid", message: expect.stringMatching(ASYNC) });
    expect(lm.requests).toHaveLength(1);
  });

  it("a tool's input: the tool does not run, the model is told, and no unhandled rejection", async () => {
    let runs = 0;
    const check = tool("check", { description: "Check an id.", input: { id: lookedUp() }, effects: "reads" }, () => (runs++, "ok"));
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [check] });
    const lm = scripted([{ toolCalls: [{ name: "check", input: { id: "A-1" } }] }, "done"]);
    expect(await desk("go", { lm })).toBe("done");
    expect(runs).toBe(0);
    expect(toolResults(lm.requests[1])[0]![1]).toMatch(/could not be checked.*schema is async/);
    await settled();
    expect(unhandled).toEqual([]);
  });

  it("a program's output: output-invalid, and no unhandled rejection", async () => {
    const p = program("p", { description: "Answers.", input: { q: z.string() }, output: lookedUp() }, async () => "x");
    await expect(p("q")).rejects.toMatchObject({ code: "output-invalid", message: expect.stringMatching(ASYNC) });
    await settled();
    expect(unhandled).toEqual([]);
  });

  it("an async refinement that passes is refused all the same (never read as passed); sync schemas read as safeParse reads them", async () => {
    const read = readWith(z.object({ id: z.string().refine(async () => true) }), { id: "A-1" });
    expect("thrown" in read && String(read.thrown)).toMatch(ASYNC);
    const refused = readWith(z.object({ id: z.string().refine((s) => s.startsWith("A"), "starts with A") }), { id: "B-1" });
    expect(refused).toMatchObject({ success: false });
    expect("error" in refused && refused.error?.issues).toEqual([{ code: "custom", path: ["id"], message: "starts with A" }]);
    expect("error" in refused && refused.error instanceof Error).toBe(true);
    expect(readWith(z.object({ id: z.string().transform((s) => s.length) }), { id: "A-1" })).toEqual({ success: true, data: { id: 3 } });
    expect(readWith(z.string().default("x"), undefined)).toEqual({ success: true, data: "x" });
    await settled();
    expect(unhandled).toEqual([]);
  });
});

describe("a schema whose refinement throws (a bug), read for a caller's input or a reply", () => {
  const buggy = () =>
    z.string().refine(() => {
      throw new TypeError("lookup is not a function");
    });

  it("an AI function's input: input-invalid with the thrown error as its cause, nothing sent", async () => {
    const lm = scripted(["never"]);
    const answer = ai("answer", { description: "Answer.", input: { id: buggy() } });
    const refused = await answer("A-1", { lm }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/input could not be read.*lookup is not a function/) });
    expect((refused as Error).cause).toBeInstanceOf(TypeError);
    expect(lm.requests).toHaveLength(0);
  });

  it("an AI function's output: output-invalid with the thrown error as its cause, the model not asked again", async () => {
    const lm = scripted(['<result>"A-1"</result>', '<result>"A-2"</result>']);
    const answer = ai("answer", { description: "Answer.", input: { q: z.string() }, output: buggy() });
    const refused = await answer("which?", { lm }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "output-invalid", message: expect.stringMatching(/output schema threw.*lookup is not a function/) });
    expect((refused as Error).cause).toBeInstanceOf(TypeError);
    expect(lm.requests).toHaveLength(1);
  });
});

describe("a schema with an async transform", () => {
  /** A transform that waits, then fails as a lookup that failed does. */
  const lookUp = () =>
    z.string().transform(async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error("the lookup failed");
    });

  it("an AI function's input: refused saying the schema is async, the transform never run, nothing sent, and no unhandled rejection", async () => {
    let runs = 0;
    const counted = z.string().transform(async (s) => (runs++, s));
    const lm = scripted(["never"]);
    const answer = ai("answer", { description: "Answer.", input: { id: lookUp(), other: counted.optional() } });
    const refused = await answer({ id: "A-1", other: "B" }, { lm }).catch((e: unknown) => e);
    await settled();
    expect(unhandled).toEqual([]);
    expect(refused).toMatchObject({ code: "input-invalid", message: expect.stringMatching(ASYNC) });
    expect(runs).toBe(0);
    expect(lm.requests).toHaveLength(0);
  });

  it("found wherever it sits (an array, a union, a pipe, a preprocess, a record, a lazy schema, a default, nested objects), none of it run", async () => {
    let runs = 0;
    const fn = async (s: string) => (runs++, s);
    const places: [z.ZodType, unknown][] = [
      [z.array(z.string().transform(fn)), ["a"]],
      [z.union([z.number(), z.string().transform(fn)]), "a"],
      [z.string().pipe(z.string().transform(fn)), "a"],
      [z.preprocess(async (v) => (runs++, v), z.string()), "a"],
      [z.record(z.string(), z.string().transform(fn)), { a: "b" }],
      [z.lazy(() => z.string().transform(fn)), "a"],
      [z.string().transform(fn).default("x"), "a"],
      [z.object({ deep: z.object({ deeper: z.string().transform(fn) }) }), { deep: { deeper: "a" } }],
      [z.object({ id: z.string().refine(async () => (runs++, true)) }), { id: "a" }],
    ];
    for (const [schema, value] of places) {
      const read = readWith(schema, value);
      expect("thrown" in read && String(read.thrown)).toMatch(ASYNC);
    }
    expect(runs).toBe(0);
    await settled();
    expect(unhandled).toEqual([]);
  });

  it("beside a check that throws (a bug): the thrown error is given back, and the transform's failure is not left unhandled", async () => {
    const schema = z.object({
      a: lookUp(),
      b: z.string().refine(() => {
        throw new TypeError("lookup is not a function");
      }),
    });
    const read = readWith(schema, { a: "x", b: "y" });
    expect("thrown" in read && String(read.thrown)).toMatch(ASYNC);
    await settled();
    expect(unhandled).toEqual([]);
  });

  it("a recursive schema with no async part reads as before", () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string().transform((s) => s.trim()), children: z.array(node) }));
    expect(readWith(node, { name: " a ", children: [{ name: "b ", children: [] }] })).toEqual({
      success: true,
      data: { name: "a", children: [{ name: "b", children: [] }] },
    });
  });
});
