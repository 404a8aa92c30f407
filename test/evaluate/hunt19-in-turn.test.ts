/**
 * Hunt: evaluate called in a program's body, given the turn's own signal
 * (`ctx.signal`, as the SDK tells a call inside a turn to take). Each row's
 * call was handed a signal of evaluate's making instead, which a call inside
 * a turn refuses (`settings-invalid`: "a signal of its own"): every row
 * failed, quietly, and the run scored 0. Without a signal the same rows answer.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const rows = [
  { q: "a", result: "ok" },
  { q: "b", result: "ok" },
];

describe("evaluate in a program's body", () => {
  it("given ctx.signal, its rows answer as they do without a signal", async () => {
    const lm = scripted(Array.from({ length: 10 }, () => "<result>\nok\n</result>"));
    const nightly = program(
      "nightly",
      { description: "Measures echo.", input: { n: z.number() }, output: z.array(z.string().nullable()) },
      async (_input, ctx) => {
        const ev = await evaluate(echo.using({ lm }), rows, { signal: ctx.signal, concurrency: 1 });
        return ev.rows.map((r) => r.error);
      },
    );
    expect(await nightly({ n: 1 })).toEqual([null, null]);
    expect(lm.requests).toHaveLength(2);
  });

  it("bootstrapFewShot in a program's body, with or without ctx.signal, records its runs", async () => {
    for (const withSignal of [false, true]) {
      const lm = scripted(Array.from({ length: 10 }, () => "<result>\nok\n</result>"));
      const tune = program("tune", { description: "Tunes echo.", input: { n: z.number() }, output: z.number() }, async (_input, ctx) => {
        const better = await bootstrapFewShot(echo, rows, {
          teacher: lm,
          maxBootstrapped: 2,
          maxLabeled: 2,
          concurrency: 2,
          ...(withSignal ? { signal: ctx.signal } : {}),
        });
        return better.demos.filter((d) => d.outputs.result === "ok").length;
      });
      expect(await tune({ n: 1 })).toBe(2);
      expect(lm.requests).toHaveLength(2);
    }
  });
});
