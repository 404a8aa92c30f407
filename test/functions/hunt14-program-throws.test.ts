/**
 * What a program's body throws is what its call rejects with: a thrown
 * string, number or plain object comes back as it was thrown. A body that
 * threw `undefined` or `null` was told apart from no error by `??`
 * (src/turn/run.ts, `resultOf`: `session.error ?? new FunctaiError("turn-state", …)`),
 * so the call rejected with `turn-state` ("the turn is in a wrong state")
 * and the message "undefined": a code that says something else happened.
 * The session now keeps whether the run threw apart from what it threw
 * (`TurnSession.threw`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { program } from "../../src/index.js";

const throwing = (value: unknown) =>
  program("p", { description: "Fails.", input: { m: z.string() } }, () => {
    throw value;
  });

const rejection = (p: Promise<unknown>): Promise<{ value: unknown }> =>
  p.then(
    () => ({ value: "it did not reject" }),
    (e: unknown) => ({ value: e }),
  );

describe("a program's body that throws a value that is not an Error", () => {
  it("a string, a number or an object: the call rejects with it, as thrown", async () => {
    const obj = { why: "no" };
    for (const value of ["boom", 5, obj]) {
      const p = throwing(value);
      expect((await rejection(p("x"))).value).toBe(value);
      expect((await rejection(p.predict("x"))).value).toBe(value);
    }
  });

  it("undefined or null: the call rejects with it too, not a turn-state FunctaiError", async () => {
    for (const value of [undefined, null]) {
      const p = throwing(value);
      expect((await rejection(p("x"))).value).toBe(value);
      expect((await rejection(p.predict("x"))).value).toBe(value);
    }
  });
});
