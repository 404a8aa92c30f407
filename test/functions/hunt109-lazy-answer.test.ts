/**
 * Hunt 109: an AI function's answer type that no JSON parses into (a
 * `z.date()`, a `z.map()`) is refused when the function is defined, and a
 * tool's input inside a `z.lazy` is refused at the first call, before any
 * model call. An answer's `z.lazy` was looked into by nothing: the model was
 * shown `{}` for the date, every reply it wrote was refused, and the caller
 * paid for two model replies to get `output-invalid`. It is refused now at
 * the first call (`settings-invalid`, naming where and what to use), before
 * any model call; a lazy answer the model can write is read as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/functions/ai.js";
import { scripted } from "../../src/testing/index.js";

const dated = '<result>\n{"items":[{"due":"2026-12-03T10:00:00Z"}]}\n</result>';

describe("an answer whose z.lazy holds a type no JSON parses into", () => {
  it("is refused at the first call, naming where, before any model call", async () => {
    const Item = z.object({ due: z.date() });
    const plan = ai("plan", { description: "Plan.", input: { ask: z.string() }, output: z.object({ items: z.lazy(() => z.array(Item)) }) });
    const lm = scripted([dated, dated]);
    const e = await plan("go", { lm }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "settings-invalid", message: expect.stringMatching(/plan: its output items\[\]\.due is z\.date\(\)/) });
    expect(lm.requests).toHaveLength(0);
    // a lazy answer the model can write (a date read from its text among it) is read as before
    type Step = { title: string; at: Date; then: Step[] };
    const step: z.ZodType<Step, unknown> = z.lazy(() =>
      z.object({ title: z.string(), at: z.iso.datetime().transform((s) => new Date(s)), then: z.array(step) }),
    );
    const steps = ai("steps", { description: "Plan.", input: { ask: z.string() }, output: step });
    const writes = scripted(['<result>\n{"title":"a","at":"2026-12-03T10:00:00Z","then":[]}\n</result>']);
    expect(await steps("go", { lm: writes })).toEqual({ title: "a", at: new Date("2026-12-03T10:00:00Z"), then: [] });
    expect(writes.requests).toHaveLength(1);
  });

  it("naming a schema defined after the function: refused at the first call too, and so is a stream", async () => {
    const plan = ai("plan", { description: "Plan.", input: { ask: z.string() }, output: z.lazy(() => Later) });
    const Later = z.map(z.string(), z.string());
    const lm = scripted(["<result>\n{}\n</result>"]);
    await expect(plan.stream("go", { lm })).rejects.toMatchObject({ code: "settings-invalid", message: expect.stringMatching(/z\.map\(\)/) });
    expect(lm.requests).toHaveLength(0);
  });
});
