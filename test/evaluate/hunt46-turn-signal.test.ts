/**
 * Hunt 46: `evaluate` in a program's body given a signal of the caller's own (`AbortSignal.timeout(…)`, a controller),
 * not the turn's (`ctx.signal`). Each row's call joins the turn, and a call inside a turn refuses a signal of its own
 * (`settings-invalid`): every row failed, the run scored 0 and resolved as if the function were wrong. It is refused
 * up front now (`input-invalid`, saying to pass ctx.signal or use a store), before any model call; with `store` each
 * row is a conversation of its own, where a signal of its own is taken, and that still runs.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, evaluate, program } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const rows = [
  { q: "a", result: "ok" },
  { q: "b", result: "ok" },
];

describe("evaluate in a program's body with a signal that is not the turn's", () => {
  it("is refused before any model call, saying how to stop it", async () => {
    const lm = scripted(Array.from({ length: 10 }, () => "<result>\nok\n</result>"));
    const nightly = program("nightly", { description: "Measures echo.", input: { n: z.number() }, output: z.number().nullable() }, async () => {
      const ev = await evaluate(echo.using({ lm }), rows, { signal: new AbortController().signal });
      return ev.score;
    });
    const e = await nightly({ n: 1 }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "input-invalid" });
    expect(String((e as Error).message)).toMatch(/evaluate was called inside nightly#1 with a signal that is not the turn's: .*ctx\.signal/);
    expect(lm.requests).toHaveLength(0);
  });

  it("the turn's own signal, or a store (a conversation per row), runs every row", async () => {
    const lm = scripted(Array.from({ length: 10 }, () => "<result>\nok\n</result>"));
    const nightly = program(
      "nightly",
      { description: "Measures echo.", input: { n: z.number() }, output: z.array(z.number().nullable()) },
      async (_i, ctx) => {
        const a = await evaluate(echo.using({ lm }), rows, { signal: ctx.signal });
        const b = await evaluate(echo.using({ lm }), rows, { signal: new AbortController().signal, store: memoryStore() });
        return [a.score, b.score];
      },
    );
    expect(await nightly({ n: 1 })).toEqual([1, 1]);
    expect(lm.requests).toHaveLength(4);
  });
});
