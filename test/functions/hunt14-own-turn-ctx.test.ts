/**
 * `fn.predict(...)` and `fn.stream(...)` start a turn of their own (the
 * engine says so: "fn.predict(...) starts a call of its own"). Given
 * `{ ctx }`, which says "join the caller's turn" (README "Programs": "in
 * browsers pass `{ ctx }` to calls made after an `await`"), they took it
 * without a word and ran outside that turn: not kept in its journal, and
 * not under its `approve`, so a refund ran that the caller's rule would have
 * asked a person about. They refuse it now (`settings-invalid`), before any
 * model call, saying how to join.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { program, type ProgramContext } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusalOf, errorOf } from "../fixtures/refused.js";
import { FunctaiError } from "../../src/errors.js";
import { desk } from "./hunt14-desk.js";

describe("predict and stream given a ctx (the caller's turn)", () => {
  it("predict inside a program under approve 'changes': refused, nothing sent, the refund never runs", async () => {
    const { fn, lm, REFUNDS } = desk();
    const seen: unknown[] = [];
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }, ctx: ProgramContext) => {
      seen.push(
        await fn.predict(message, { ctx, lm }).then(
          (p) => p.result,
          (e: unknown) => e,
        ),
      );
      return "routed";
    });
    expect(await support.using({ approve: "changes" })("Refund A-1.", { lm: scripted([]) })).toBe("routed");
    expect(seen[0]).toBeInstanceOf(FunctaiError);
    expect((seen[0] as FunctaiError).code).toBe("settings-invalid");
    expect((seen[0] as FunctaiError).message).toMatch(/predict starts a turn of its own.*call desk\(input, \{ ctx \}\)/);
    expect(REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(0);
  });

  it("stream inside a program: refused at once, nothing sent", async () => {
    const { fn, lm, REFUNDS } = desk();
    let thrown: unknown;
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }, ctx: ProgramContext) => {
      thrown = errorOf(() => fn.stream(message, { ctx, lm }));
      return "routed";
    });
    await support("Refund A-1.");
    expect(thrown).toBeInstanceOf(FunctaiError);
    expect((thrown as FunctaiError).code).toBe("settings-invalid");
    expect(REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(0);
  });

  it("the call itself with ctx joins the caller's turn and its rule (approval-required), and predict without ctx still runs on its own", async () => {
    const { fn, lm, REFUNDS } = desk();
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }, ctx: ProgramContext) =>
      fn(message, { ctx, lm }),
    );
    expect((await refusalOf(() => support.using({ approve: "changes" })("Refund A-1."))).code).toBe("approval-required");
    expect(REFUNDS).toEqual([]);
    const own = desk();
    expect((await own.fn.predict("Refund A-1.", { lm: own.lm })).result).toBe("Refunded.");
    expect(own.REFUNDS).toEqual(["A-1"]);
  });
});
