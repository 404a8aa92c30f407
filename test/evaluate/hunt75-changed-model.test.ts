/**
 * Hunt 75: `evaluate` with a `store`, in a program's turn, sends each row as a keyed turn of a conversation named by
 * the run (`<run>-<n>`), so the turn run again finds the rows it paid for. Hunt 72 named the run by the function's
 * interface, its worked examples and the rows' inputs, but not by what else decides the replies: the model the rows
 * run on and its settings. Run again after the model changed (another model, a temperature, a tool's input schema),
 * the rows answered from the old model's turns, and the run scored the old model's answers under the new one's name.
 * Without a store each reply is found by its request (the model, its settings and the tools are in its key), and the
 * changed rows are called again: so they are now with one. The same model and settings still find their rows.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { nightlyResumed, reportModel, rowsOf } from "./fixtures/report-turn.js";

const rows = rowsOf(["alpha", "bravo", "charlie"]);

const lookup = (input: z.ZodRawShape) => tool("lookup", { description: "Looks a word up.", input, effects: "reads" }, () => "found");
const plain = ai("echo", { description: "Say the word back.", input: { q: z.string() }, tools: [lookup({ id: z.string() })] });
type Echo = typeof plain;

/** Another model, which answers every word in capitals. */
const shouter = () =>
  scripted(
    Array.from({ length: 10 }, () => (r: LMRequest) => {
      const word = /<q>\n?([a-z]+)/.exec(r.messages.at(-1)!.content)?.[1] ?? "?";
      return `<result>\n${word.toUpperCase()}!\n</result>`;
    }),
    { model: "shouter-2" },
  );

/** The nightly run (fixtures/report-turn.ts), the rows run on `changed(lm)` once it waits. */
const resumedWith = (changed: (lm: ReturnType<typeof reportModel>) => Echo) => {
  const lm = reportModel();
  return nightlyResumed(lm, plain.using({ lm }), rows, changed);
};

describe("evaluate with a store, in a turn run again after the model or its settings changed", () => {
  it("another model: the rows are its answers (called again), not the first model's", async () => {
    const other = shouter();
    const { lm, scores, runs } = await resumedWith(() => plain.using({ lm: other }));
    expect(other.requests).toHaveLength(3); // every row asked of the new model
    expect(scores).toEqual([0, 0, 0]); // it shouts: the first model's saved answers scored 1, 1, 1
    expect(lm.requests).toHaveLength(5); // the first model: only the report's answer
    expect(runs[1]).not.toBe(runs[0]);
  });

  it("another temperature: called again", async () => {
    const { lm, runs } = await resumedWith((lm) => plain.using({ lm, temperature: 0.9 }));
    expect(lm.requests).toHaveLength(8); // the three rows again, and the report's answer
    expect(lm.requests.slice(4, 7).map((r) => r.temperature)).toEqual([0.9, 0.9, 0.9]); // the rows, before the report
    expect(runs[1]).not.toBe(runs[0]);
  });

  it("a tool whose input schema changed (same name and effects): called again", async () => {
    const { lm, runs } = await resumedWith((lm) =>
      ai("echo", { description: "Say the word back.", input: { q: z.string() }, tools: [lookup({ id: z.number() })] }).using({ lm }),
    );
    expect(lm.requests).toHaveLength(8);
    expect(runs[1]).not.toBe(runs[0]);
  });

  it("the same model and settings, given another way (the function defined again, its settings in two layers): found, nothing paid twice", async () => {
    const { lm, scores, runs } = await resumedWith((lm) =>
      ai("echo", { description: "Say the word back.", input: { q: z.string() }, tools: [lookup({ id: z.string() })] })
        .using({ maxSteps: 8 })
        .using({ lm }),
    );
    expect(scores).toEqual([1, 1, 1]);
    expect(lm.requests).toHaveLength(5);
    expect(runs[1]).toBe(runs[0]);
  });
});
