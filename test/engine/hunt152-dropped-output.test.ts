/**
 * Hunt 152: a tool output holding what JSON leaves out without a word. A function or a symbol as a key's value (the
 * key is gone) or an array's item (written as null), or an object whose toJSON gives nothing: `{ total: 5, refresh:
 * () => … }` reached the model and the journal as `{"total":5}`, and nobody was told. Such an output is refused as
 * every other output that is not JSON (the model is told, the journal keeps the error, with toolErrors "raise"
 * `tool-failed`), naming where the value is. The other checks that ask the same (a tool's input, an AI function's
 * input, what a plugin keeps) refuse it too; a key left undefined stays a key left out, as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outputNotJson } from "../../src/engine/tool-boundary.js";
import { ai, FunctaiError, memoryStore, tool } from "../../src/index.js";
import type { ToolRecord } from "../../src/records/types.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const OUTPUTS: [string, () => unknown, string][] = [
  ["a function as a key's value", () => ({ total: 5, refresh: () => 1 }), "refresh is a function, which JSON leaves out"],
  ["a function as an array's item", () => ({ rows: [1, () => 2] }), "rows[1] is a function, which JSON writes as null"],
  ["a symbol deep in an array of objects", () => [{ id: "A" }, { id: Symbol("B") }], "[1].id is a symbol, which JSON leaves out"],
  ["a toJSON that gives nothing under a key", () => ({ order: { id: "A", toJSON: () => undefined } }), "order is an object whose toJSON gives no JSON value, which JSON leaves out"],
  ["a toJSON that gives a function", () => ({ odd: ["x", { toJSON: () => () => 1 }] }), "odd[1] is an object whose toJSON gives a function, which JSON writes as null"],
  ["a method of an object made by a class, as an own key", () => new (class Row { id = "A"; show = () => this.id })(), "show is a function, which JSON leaves out"],
];

/** A desk whose `look` tool (changing) returns `output()`, counting its runs. */
function desk(output: () => unknown, toolErrors?: "raise") {
  const runs = { n: 0 };
  const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "changes" }, () => {
    runs.n++;
    return output();
  });
  return { fn: ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [look], ...(toolErrors && { toolErrors }) }), runs };
}
const replies = () => scripted([{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "done"]);

describe("hunt 152: a tool output holding what JSON leaves out is refused, naming where", () => {
  for (const [name, output, why] of OUTPUTS)
    it(`${name}: the model is told, and the journal keeps the error, not the output less the value`, async () => {
      const { fn, runs } = desk(output);
      const store = memoryStore();
      const lm = replies();
      expect(await fn.conversation("c", { store, lm }).send("go")).toBe("done");
      expect(runs.n).toBe(1);
      const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
      // (a changing tool's error goes on to say it ran)
      const told = `Error: its output is not JSON (${why})`;
      expect(content.slice(0, told.length)).toBe(told);
      const done = (await store.read("c")).find((r) => r.kind === "tool" && r.state === "done") as ToolRecord;
      expect(done).toMatchObject({ error: expect.stringContaining(why) });
      expect(done).not.toHaveProperty("output");
    });

  it('with toolErrors "raise": tool-failed, naming where', async () => {
    const { fn } = desk(() => ({ total: 5, refresh: () => 1 }), "raise");
    const error = await fn("go", { lm: replies() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "tool-failed", message: expect.stringContaining("refresh is a function, which JSON leaves out") });
  });

  it("guard: what JSON keeps as it was meant is taken (a key left undefined, an undefined item, Dates, prototype methods)", async () => {
    class Order {
      constructor(readonly id: string) {}
      label(): string {
        return this.id;
      }
    }
    const output = { note: undefined, items: [undefined, 1], at: new Date(0), order: new Order("A"), nested: [{ deep: [{ n: 1 }] }] };
    expect(outputNotJson(output)).toBeUndefined();
    const { fn } = desk(() => output);
    const lm = replies();
    expect(await fn("go", { lm })).toBe("done");
    expect(toolResults(lm.requests[1])).toEqual([["look", '{"items":[null,1],"at":"1970-01-01T00:00:00.000Z","order":{"id":"A"},"nested":[{"deep":[{"n":1}]}]}']]);
  });
});

describe("hunt 152: the other checks of what is kept as JSON refuse such a value too", () => {
  it("a tool's input, as its schema gives it, holding a function: tool-failed before it runs", async () => {
    const runs: unknown[] = [];
    const send = tool(
      "send",
      { description: "Send.", input: { to: z.string().transform((to) => ({ to, format: () => to })) }, effects: "reads" },
      ({ to }) => runs.push(to),
    );
    const fn = ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [send], toolErrors: "raise" });
    const lm = scripted([{ toolCalls: [{ name: "send", input: { to: "maria" } }] }, "done"]);
    const error = await fn("go", { lm }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "tool-failed", message: expect.stringContaining("(to.format is a function, which JSON leaves out)") });
    expect(runs).toEqual([]);
  });

  it("an AI function's input holding a function: input-invalid, nothing sent", async () => {
    const fn = ai("desk", { description: "Answer.", input: { order: z.any() } });
    const lm = scripted(["done"]);
    const error = await fn({ order: { id: "A", total: () => 5 } }, { lm }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "input-invalid", message: expect.stringContaining("its input order is not JSON (total is a function, which JSON leaves out)") });
    expect(lm.requests).toHaveLength(0);
  });
});
