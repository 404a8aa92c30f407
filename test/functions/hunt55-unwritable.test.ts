/**
 * Hunt 55: a model writes JSON (a tool call's input, an AI function's answer).
 * A zod type no JSON value parses into (`z.date()`, `z.map()`, `z.set()`,
 * `z.bigint()`, `z.symbol()`, `z.function()`, `z.promise()`, …) was shown to
 * the model as `{}` (zod's toJSONSchema has no word for it, and it was asked
 * for `unrepresentable: "any"`), so whatever the model wrote was refused: the
 * tool never ran, or every answer was output-invalid, found only at a call.
 * Such a definition is refused (`settings-invalid`) when it is made, naming
 * it, the place and what to use instead. `z.coerce.date()` reads a JSON
 * date-time text, so a tool takes it, and the model is shown that text
 * (it was shown `{}`).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, resetConfiguration, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { book, refusal } from "./fixtures/refusal.js";

beforeEach(() => resetConfiguration());


describe("a tool whose input the model cannot write", () => {
  const cases: { name: string; input: z.ZodRawShape; path: string; what: RegExp; instead: RegExp }[] = [
    { name: "z.date()", input: { at: z.date() }, path: "at", what: /z\.date\(\)/, instead: /z\.iso\.datetime\(\)/ },
    { name: "z.map()", input: { prices: z.map(z.string(), z.number()) }, path: "prices", what: /z\.map\(\)/, instead: /z\.record/ },
    { name: "z.set()", input: { tags: z.set(z.string()) }, path: "tags", what: /z\.set\(\)/, instead: /z\.array/ },
    { name: "z.bigint()", input: { cents: z.bigint() }, path: "cents", what: /z\.bigint\(\)/, instead: /z\.int\(\)/ },
    { name: "z.symbol()", input: { key: z.symbol() }, path: "key", what: /z\.symbol\(\)/, instead: /z\.string\(\)/ },
    { name: "z.function()", input: { cb: z.function() }, path: "cb", what: /z\.function\(\)/, instead: /JSON/ },
    { name: "z.promise()", input: { later: z.promise(z.string()) }, path: "later", what: /z\.promise\(\)/, instead: /value/ },
    { name: "z.instanceof()", input: { at: z.instanceof(Date) }, path: "at", what: /z\.instanceof/, instead: /JSON type/ },
    {
      name: "nested, in an array",
      input: { order: z.object({ items: z.array(z.object({ shipped: z.date() })) }) },
      path: "order.items[].shipped",
      what: /z\.date\(\)/,
      instead: /iso/,
    },
    { name: "optional", input: { at: z.date().optional() }, path: "at", what: /z\.date\(\)/, instead: /iso/ },
    { name: "one option of a union", input: { at: z.union([z.string(), z.date()]) }, path: "at", what: /z\.date\(\)/, instead: /iso/ },
    { name: "a record's values", input: { by: z.record(z.string(), z.bigint()) }, path: "by.*", what: /z\.bigint\(\)/, instead: /int/ },
  ];
  for (const c of cases)
    it(`${c.name}: refused when the tool is made, naming the tool, the input and what to use`, () => {
      const e = refusal(() => book(c.input));
      expect(e.message).toContain("tool book");
      expect(e.message).toContain(`input ${c.path} is`);
      expect(e.message).toMatch(c.what);
      expect(e.message).toMatch(c.instead);
    });

  it("what JSON carries is taken: text dates, transforms, preprocess, defaults, nullable, recursion, discriminated unions", () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    expect(() =>
      book({
        at: z.iso.datetime(),
        day: z.iso.date().transform((s) => new Date(s)),
        n: z.preprocess((v) => (typeof v === "string" ? Number(v) : v), z.number()),
        count: z.number().default(1),
        note: z.string().nullable(),
        tree: node,
        kind: z.discriminatedUnion("k", [z.object({ k: z.literal("a"), a: z.string() }), z.object({ k: z.literal("b"), b: z.number() })]),
        anything: z.unknown(),
        coerced: z.coerce.date(),
        flag: z.stringbool(),
      }),
    ).not.toThrow();
  });

  it("z.coerce.date(): the model is shown a date-time text (it was shown {}), and the body gets a Date", async () => {
    const when: unknown[] = [];
    const booking = tool(
      "book",
      { description: "Book.", input: { at: z.coerce.date().describe("when") }, effects: "reads" },
      ({ at }) => (when.push(at), "booked"),
    );
    const desk = ai("desk", { description: "Book.", input: { ask: z.string() }, tools: [booking] });
    const lm = scripted([{ toolCalls: [{ name: "book", input: { at: "2026-12-03T10:00:00Z" } }] }, "done"]);
    expect(await desk("book", { lm })).toBe("done");
    expect(lm.requests[0]!.tools[0]!.parameters).toMatchObject({
      properties: { at: { type: "string", format: "date-time", description: "when" } },
    });
    expect(when).toEqual([new Date("2026-12-03T10:00:00Z")]);
  });

  it("a z.lazy naming a schema defined after the tool is not touched when the tool is made: the tool runs", async () => {
    const seen: unknown[] = [];
    const file = tool(
      "file",
      { description: "File it.", input: { ticket: z.lazy(() => Ticket) }, effects: "reads" },
      ({ ticket }) => (seen.push(ticket), "filed"),
    );
    const Ticket = z.object({ title: z.string(), at: z.coerce.date() });
    const desk = ai("desk", { description: "File.", input: { ask: z.string() }, tools: [file] });
    const lm = scripted([{ toolCalls: [{ name: "file", input: { ticket: { title: "kettle", at: "2026-12-03T10:00:00Z" } } }] }, "done"]);
    expect(await desk("go", { lm })).toBe("done");
    expect(seen).toEqual([{ title: "kettle", at: new Date("2026-12-03T10:00:00Z") }]);
    expect(lm.requests[0]!.tools[0]!.parameters).toMatchObject({
      properties: { ticket: { properties: { at: { type: "string", format: "date-time" } } } },
    });
  });

  it("inside a z.lazy (not looked into when made: it may name a schema defined later): refused at the first call, before any model call", async () => {
    const lazy = tool("lazy", { description: "Lazy.", input: { at: z.lazy(() => z.date()) }, effects: "reads" }, () => "ok");
    const desk = ai("desk", { description: "Book.", input: { ask: z.string() }, tools: [lazy] });
    const lm = scripted(["done"]);
    await expect(desk("go", { lm })).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringMatching(/tool lazy: its input at is z\.date\(\)/),
    });
    expect(lm.requests).toHaveLength(0);
  });

  it("a z.lazy naming a schema defined after the tool: refused at the first call, before any model call", async () => {
    const later = tool("later", { description: "Later.", input: { at: z.lazy(() => When) }, effects: "reads" }, () => "ok");
    const When = z.date();
    const desk = ai("desk", { description: "Book.", input: { ask: z.string() }, tools: [later] });
    const lm = scripted(["done"]);
    const e = await desk("go", { lm }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "settings-invalid", message: expect.stringMatching(/tool later: its input at is z\.date\(\)/) });
    expect(lm.requests).toHaveLength(0);
  });
});

describe("an AI function or program listed as a tool: the model writes its input", () => {
  it("an AI function with a z.date() input is called from code as before, and refused as another's tool", async () => {
    const when = ai("when", { description: "Say the weekday.", input: { at: z.date() } });
    const lm = scripted(["Thursday"]);
    expect(await when({ at: new Date("2026-12-03T10:00:00Z") }, { lm })).toBe("Thursday");
    const e = refusal(() => ai("desk", { description: "Help.", input: { ask: z.string() }, tools: [when] }));
    expect(e.message).toMatch(/desk: tool when: its input at is z\.date\(\)/);
  });

  it("a program with a z.bigint() input, as a tool: refused; with z.coerce.date(): taken", () => {
    const count = program("count", { description: "Count.", input: { n: z.bigint() } }, ({ n }) => String(n));
    expect(refusal(() => ai("desk", { description: "Help.", input: { ask: z.string() }, tools: [count] })).message).toMatch(
      /tool count: its input n is z\.bigint\(\)/,
    );
    const dated = program("dated", { description: "Dated.", input: { at: z.coerce.date() } }, ({ at }) => at.toISOString());
    expect(() => ai("desk", { description: "Help.", input: { ask: z.string() }, tools: [dated] })).not.toThrow();
  });
});

describe("an AI function whose answer the model cannot write", () => {
  for (const [name, output, what] of [
    ["z.date()", z.date(), /its output is z\.date\(\)/],
    ["z.coerce.date() (the reply form shows the model nothing it can write)", z.coerce.date(), /its output is z\.coerce\.date\(\)/],
    ["z.set()", z.set(z.string()), /its output is z\.set\(\)/],
    ["an object with a bigint", z.object({ total: z.bigint() }), /its output total is z\.bigint\(\)/],
  ] as const)
    it(`${name}: refused when defined`, () => {
      const e = refusal(() => ai("due", { description: "The due date.", input: { q: z.string() }, output }));
      expect(e.message).toMatch(what);
    });

  it("an ISO text turned into a Date is taken, and answers with a Date", async () => {
    const due = ai("due", { description: "The due date.", input: { q: z.string() }, output: z.iso.datetime().transform((s) => new Date(s)) });
    const lm = scripted(['<result>\n"2026-03-01T00:00:00Z"\n</result>']);
    expect(await due("A-1042", { lm })).toEqual(new Date("2026-03-01T00:00:00Z"));
  });
});
