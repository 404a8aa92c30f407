/**
 * Hunt 13: the optimizers' own arguments, refused up front (before any model call) with a FunctaiError and
 * a stable code, as the brief of evaluate and optimize asks of every wrong input:
 *
 * - `teacher` is the model the runs use ("runs `fn` (or `fn.using({ lm: teacher })`)", DESIGN). A misspelt
 *   name or a value that is no model failed every run with `lm-unknown`, each row quietly, and
 *   bootstrapFewShot gave back labeled rows only, as if the teacher had simply never passed.
 * - the optimizers make "a new AI function" (README): a program has no examples and no state. Given one,
 *   bootstrapFewShot ran every row (paid for) and then threw a bare TypeError (`fn.state is not a function`);
 *   labeledFewShot threw the same TypeError.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, FunctaiError, labeledFewShot, program } from "../../src/index.js";
import { rows, status, teacher } from "./desk.js";

describe("bootstrapFewShot's teacher", () => {
  it("a misspelt model name is refused up front (lm-unknown), not a run of failed rows that gives labeled rows only", async () => {
    const err = await bootstrapFewShot(status, rows.slice(0, 2), { teacher: "gtp-4.1" }).then(
      (f) => f.demos,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FunctaiError);
    expect(err).toMatchObject({ code: "lm-unknown", message: expect.stringMatching(/teacher.*gtp-4\.1/) });
  });

  it("a value that is no model (null, a number, a plain object) is refused input-invalid, naming teacher", async () => {
    for (const bad of [null, 42, {}, { generate: () => "hi" }]) {
      await expect(bootstrapFewShot(status, rows.slice(0, 2), { teacher: bad as never }), JSON.stringify(bad)).rejects.toMatchObject({
        code: "input-invalid",
        message: expect.stringContaining("teacher"),
      });
    }
  });

  it("a model object or a known name is taken (the runs pass with a good teacher)", async () => {
    const better = await bootstrapFewShot(status, rows.slice(0, 2), { teacher: teacher(), maxBootstrapped: 1, maxLabeled: 1 });
    expect(better.demos[0]!.steps?.[0]?.toolCalls[0]?.name).toBe("lookup_order");
    // a name that resolves is only resolved, never called, before the runs (maxBootstrapped 0: there are none)
    const named = await bootstrapFewShot(status, rows.slice(0, 2), { teacher: "openai:gpt-4.1-mini", maxBootstrapped: 0, maxLabeled: 1 });
    expect(named.demos).toHaveLength(1);
  });
});

describe("the optimizers take an AI function, not a program", () => {
  const routed = program("routed", { description: "Answer through status.", input: { question: z.string() } }, ({ question }) => status(question));

  it("bootstrapFewShot refuses a program before any model call (input-invalid), not a TypeError after every run", async () => {
    const lm = teacher();
    const err = await bootstrapFewShot(routed.using({ lm }) as never, rows.slice(0, 2)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FunctaiError);
    expect(err).toMatchObject({ code: "input-invalid", message: expect.stringContaining("routed") });
    expect(lm.requests).toHaveLength(0);
  });

  it("labeledFewShot refuses a program (input-invalid), not a TypeError", () => {
    let err: unknown;
    try {
      labeledFewShot(routed as never, rows);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FunctaiError);
    expect(err).toMatchObject({ code: "input-invalid", message: expect.stringContaining("routed") });
  });
});
