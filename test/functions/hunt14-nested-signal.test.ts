/**
 * Calls take options second, `signal` among them (DESIGN "Public API").
 * A call made inside a turn (a program's body, a tool's) joins that turn
 * (README "Programs") and runs under its signal; a signal of its own was
 * taken without a word and never read: given one already aborted, the
 * call still paid the model and ran its changing tool. Refused now
 * (`settings-invalid`) before anything is sent; the turn's own signal
 * (`ctx.signal`, as program.ts's example passes it) is taken as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError } from "../../src/errors.js";
import { program, type ProgramContext } from "../../src/index.js";
import { desk } from "./hunt14-desk.js";

describe("a call inside a turn given a signal of its own", () => {
  it("an aborted one: refused before the model is asked; the refund never runs", async () => {
    const { fn, lm, REFUNDS } = desk();
    let seen: unknown;
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => {
      seen = await fn(message, { signal: AbortSignal.abort(new Error("the customer left")) }).catch((e: unknown) => e);
      return "routed";
    });
    expect(await support("Refund A-1.", { lm })).toBe("routed");
    expect(seen).toBeInstanceOf(FunctaiError);
    expect((seen as FunctaiError).code).toBe("settings-invalid");
    expect((seen as FunctaiError).message).toMatch(/^desk was called inside support#1 with a signal of its own/);
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });

  it("a live one (a timeout) given with ctx: refused too, never left unread", async () => {
    const { fn, lm } = desk();
    let seen: unknown;
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }, ctx: ProgramContext) => {
      await Promise.resolve();
      seen = await fn(message, { ctx, signal: AbortSignal.timeout(60_000) }).catch((e: unknown) => e);
      return "routed";
    });
    expect(await support("Refund A-1.", { lm })).toBe("routed");
    expect((seen as FunctaiError).code).toBe("settings-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("the turn's own signal (ctx.signal) is taken, and the call runs in the turn", async () => {
    const { fn, lm, REFUNDS } = desk();
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }, ctx: ProgramContext) =>
      fn(message, { ctx, signal: ctx.signal }),
    );
    expect(await support("Refund A-1.", { lm })).toBe("Refunded.");
    expect(REFUNDS).toEqual(["A-1"]);
  });
});
