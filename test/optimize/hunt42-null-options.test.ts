/**
 * Hunt 42: options holding `null` (a JSON config writes an unset number as null) were read as the defaults:
 * `k: null` showed 16 examples, `seed: null` picked seed 0's rows, `concurrency: null` ran 8 rows at once, each
 * silently. A count that is null is no count: it is refused (`input-invalid`, naming the option) before any model call,
 * as `threshold: null` and `signal: null` already were.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const rows = Array.from({ length: 4 }, (_, i) => ({ q: `q${i}`, result: "ok" }));
const model = () => scripted(Array.from({ length: 20 }, () => "<result>\nok\n</result>"));

const refusal = async (run: () => unknown): Promise<unknown> => {
  try {
    await run();
  } catch (e) {
    return e;
  }
  return null;
};

describe("a count option holding null is refused, not read as its default", () => {
  it.each(["k", "seed"])("labeledFewShot { %s: null }", async (key) => {
    const e = await refusal(() => labeledFewShot(echo, rows, { [key]: null } as never));
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringContaining(`${key} is a whole number`) });
  });

  it.each(["maxBootstrapped", "maxLabeled", "seed", "concurrency"])("bootstrapFewShot { %s: null }, before any model call", async (key) => {
    const lm = model();
    const e = await refusal(() => bootstrapFewShot(echo, rows, { teacher: lm, [key]: null } as never));
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringContaining(`${key} is a whole number`) });
    expect(lm.requests).toHaveLength(0);
  });

  it("evaluate { concurrency: null }, before any model call", async () => {
    const lm = model();
    const e = await refusal(() => evaluate(echo.using({ lm }), rows, { concurrency: null } as never));
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringContaining("concurrency is a whole number") });
    expect(lm.requests).toHaveLength(0);
  });

  it("left out or undefined, the defaults still hold", async () => {
    expect(labeledFewShot(echo, rows, { k: undefined, seed: undefined } as never).demos).toHaveLength(4);
    const lm = model();
    const ev = await evaluate(echo.using({ lm }), rows, { concurrency: undefined } as never);
    expect(ev.score).toBe(1);
  });
});
