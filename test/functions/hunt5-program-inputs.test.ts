/**
 * Hunt: wrong inputs to a program, and to a delegated program the model
 * calls. A program's inputs that are not JSON, that miss a required input,
 * or whose input schema throws are refused with a stable code
 * (`input-invalid`) before any model call, in a plain call, a stream and a
 * conversation (where nothing is written). A delegate called by the model
 * with an input its program does not take is refused at the tool's
 * boundary: the model is told, and the delegated conversation gets nothing.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, FunctaiError, memoryStore, program, tool, type ToolLike } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** An input schema whose check throws (not a zod issue: a bug, or a lookup that failed) for "boom". */
const throwing = () =>
  z.string().refine((s) => {
    if (s === "boom") throw new Error("the schema blew up");
    return true;
  });

/** What a call rejected (or threw) with: its class, code and message; "resolved" when it did not. */
async function refusal(call: () => unknown): Promise<{ functai: boolean; code: unknown; message: string } | "resolved"> {
  try {
    await call();
    return "resolved";
  } catch (e) {
    return { functai: e instanceof FunctaiError, code: (e as { code?: unknown }).code, message: String((e as Error).message) };
  }
}

/** A program that counts its body's runs, and asks its own model (which counts requests). */
function counted<S extends z.ZodRawShape>(input: S) {
  const lm = scripted(["never"]);
  const asked = ai("asked", { description: "Never reached.", input: { q: z.string() } });
  let runs = 0;
  const p = program("p", { description: "Takes inputs.", input }, async () => {
    runs++;
    return asked("q", { lm });
  });
  return { p, lm, runs: () => runs };
}

describe("a program's wrong inputs: input-invalid before its body runs or any model is asked", () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  const cases: { name: string; input: z.ZodRawShape; value: unknown; says: RegExp }[] = [
    { name: "a BigInt", input: { n: z.bigint() }, value: { n: 1n }, says: /not JSON/ },
    { name: "a cycle", input: { v: z.any() }, value: { v: cycle }, says: /not JSON/ },
    { name: "a missing required input", input: { a: z.string(), b: z.number() }, value: { a: "x" }, says: /b: / },
    { name: "an input it does not have", input: { a: z.string(), b: z.number() }, value: { a: "x", b: 1, c: 2 }, says: /c: not an input/ },
    { name: "an input schema that throws", input: { order: throwing() }, value: "boom", says: /could not be read \(the schema blew up\)/ },
  ];
  for (const c of cases)
    it(`${c.name}: refused in a plain call, predict, a stream and a conversation (nothing written)`, async () => {
      const { p, lm, runs } = counted(c.input);
      const call = p as unknown as (i: unknown) => Promise<unknown>;
      const store = memoryStore();
      const ways = [
        () => call(c.value),
        () => (p.predict as (i: unknown) => Promise<unknown>)(c.value),
        () => (p.stream as unknown as (i: unknown) => Promise<unknown>)(c.value),
        () => p.conversation("wrong", { store }).send(c.value as never),
        () => p.conversation("wrong", { store }).send(c.value as never, { key: "k1" }),
      ];
      for (const way of ways) {
        const r = await refusal(way);
        expect(r).toMatchObject({ functai: true, code: "input-invalid", message: expect.stringMatching(c.says) });
      }
      expect(runs()).toBe(0);
      expect(lm.requests).toHaveLength(0);
      expect(await store.read("wrong")).toEqual([]);
    });

  it("a date its conversation could not read back on resume (z.date()): input-invalid, nothing written; z.coerce.date() is taken", async () => {
    const store = memoryStore();
    const dated = program("dated", { description: "D.", input: { when: z.date() } }, async ({ when }) => when.toISOString());
    expect(await refusal(() => dated.conversation("d", { store }).send(new Date(0)))).toMatchObject({ functai: true, code: "input-invalid" });
    expect(await store.read("d")).toEqual([]);
    const coerced = program("dated", { description: "D.", input: { when: z.coerce.date() } }, async ({ when }) => when.toISOString());
    expect(await coerced.conversation("d", { store }).send(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
  });

  it("a nested program called with a wrong input inside a body: input-invalid reaches the body, before the nested call asks anything", async () => {
    const { p, lm, runs } = counted({ a: z.string(), b: z.number() });
    const outer = program("outer", { description: "O.", input: { q: z.string() } }, async () => {
      const got = await refusal(() => (p as unknown as (i: unknown) => Promise<unknown>)({ a: "x" }));
      return JSON.stringify(got);
    });
    const said = JSON.parse(await outer.conversation("o", { store: memoryStore() }).send("q")) as { code: string };
    expect(said.code).toBe("input-invalid");
    expect(runs()).toBe(0);
    expect(lm.requests).toHaveLength(0);
  });
});

describe("a delegate's wrong inputs, as the model calls it", () => {
  /** `desk`, whose tool is `tool`; its model calls the tool with `input`, then answers with what the tool said. */
  function desk(t: ToolLike, input: unknown) {
    const lm = scripted([{ toolCalls: [{ id: "c1", name: t.name, input }] }, (request) => `told: ${request.messages.at(-1)!.content}`]);
    return { desk: ai("desk", { description: "Ask billing.", input: { q: z.string() }, tools: [t] }), lm };
  }

  it("a missing required input: the model is told, the program never runs, the delegated conversation gets nothing", async () => {
    const { p, lm: inner, runs } = counted({ order: z.string(), amount: z.number() });
    const { desk: d, lm } = desk(delegate(p), { order: "A-1" });
    const store = memoryStore();
    const answer = await d.conversation("c", { store, lm }).send("refund A-1");
    expect(answer).toMatch(/^told: Error: invalid input for p: amount: .*The tool did not run\.$/);
    expect(runs()).toBe(0);
    expect(inner.requests).toHaveLength(0);
    expect(await store.read("c.p")).toEqual([]);
  });

  it("a transform its delegated conversation could not read back: the model is told input-invalid's message, the delegated conversation gets nothing", async () => {
    const { p, lm: inner, runs } = counted({ order: z.string().transform((s) => s.length) });
    const { desk: d, lm } = desk(delegate(p), { order: "abc" });
    const store = memoryStore();
    expect(await d.conversation("c", { store, lm }).send("go")).toMatch(/^told: Error: p: its inputs cannot be kept for a resume/);
    expect(runs()).toBe(0);
    expect(inner.requests).toHaveLength(0);
    expect(await store.read("c.p")).toEqual([]);
  });

  it("a transform that gives what JSON cannot keep: the turn fails tool-failed, nothing of the program runs", async () => {
    const { p, lm: inner, runs } = counted({ order: z.string().transform((s) => BigInt(s.length)) });
    const { desk: d, lm } = desk(delegate(p), { order: "abc" });
    const store = memoryStore();
    expect(await refusal(() => d.conversation("c", { store, lm }).send("go"))).toMatchObject({ functai: true, code: "tool-failed" });
    expect(runs()).toBe(0);
    expect(inner.requests).toHaveLength(0);
    expect(await store.read("c.p")).toEqual([]);
  });

  it("delegate() of what is not an AI function or a program, or under a name a tool cannot have: settings-invalid at once", () => {
    const plain = tool("plain", { description: "P.", input: {} }, () => 1);
    expect(() => delegate(plain as never)).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    expect(() => delegate(counted({ q: z.string() }).p, { name: "bad name!" })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
  });

  // FIXED (it was a bug): a tool's input schema that throws while the tool loop checks the model's call (a refine that
  // throws: a bug, a lookup that failed) ended the turn with that raw Error: not a FunctaiError, no code (DESIGN: "Every error a
  // user can see is a FunctaiError with a code"), where the same schema in a direct call is input-invalid
  // (src/functions/definition.ts parseInput catches it). The conversation's turn is ended failed with it too.
  // Cause: src/engine/tool-calls.ts:81 (prepare) calls tool.inputSchema.safeParse(call.input) unguarded (as does
  // line 120 for an input a plugin changed). A fix: catch there and treat it as the call's problem (the model is told
  // the input could not be read, as for a zod issue), or fail the turn with a coded FunctaiError (input-invalid).
  for (const kind of ["delegate", "program as a tool", "plain tool"] as const)
    it(`an input schema that throws on the model's call (${kind}): the model is told, as a tool that fails (tool-failed with toolErrors "raise"), never a raw Error`, async () => {
      const { p, runs, lm: inner } = counted({ order: throwing() });
      let ran = 0;
      const t: ToolLike =
        kind === "delegate" ? delegate(p) : kind === "program as a tool" ? p : tool("p", { description: "P.", input: { order: throwing() } }, () => (ran++, "ran"));
      const { desk: d, lm } = desk(t, { order: "boom" });
      const store = memoryStore();
      const answer = await d.conversation("c", { store, lm }).send("go");
      expect(answer).toBe("told: Error: the input for p could not be checked (its input schema threw while checking it: the schema blew up). The tool did not run.");
      const raised = desk(t, { order: "boom" });
      const r = await refusal(() => raised.desk.conversation("r", { store, lm: raised.lm, toolErrors: "raise" }).send("go"));
      expect(r).toMatchObject({ functai: true, code: "tool-failed", message: expect.stringContaining("the schema blew up") });
      expect([runs(), ran, inner.requests.length]).toEqual([0, 0, 0]);
      expect(await store.read("c.p")).toEqual([]);
    });
});

// FIXED (it was a bug): a program whose output schema throws while its value is checked rejected with that raw Error, not a
// FunctaiError (output-invalid is what a value its schema refuses gets). Cause: src/functions/program.ts:93 calls
// output.safeParse(value) unguarded. A fix: catch there and throw output-invalid with the error as its cause.
it("a program's output schema that throws: output-invalid, not a raw Error", async () => {
  const out = program("o", { description: "O.", input: { q: z.string() }, output: throwing() }, async () => "boom");
  expect(await refusal(() => out("x"))).toMatchObject({ functai: true, code: "output-invalid" });
});
