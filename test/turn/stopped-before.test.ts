/**
 * Nothing runs once a turn is stopped: a call given a signal that is
 * already aborted does not begin (a program's body is user code, and would
 * run with side effects of its own), and a call a program makes after its
 * turn was stopped does not begin either.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, program } from "../../src/index.js";

const codeOf = (e: unknown) => (e instanceof FunctaiError ? e.code : String(e));

it("a plain call, a predict and a stream given an aborted signal: the program's body never runs", async () => {
  let ran = 0;
  const send = program("send", { description: "Send.", input: { to: z.string() } }, async ({ to }) => {
    ran += 1;
    return `sent to ${to}`;
  });
  const signal = AbortSignal.abort(new Error("user left"));
  expect(codeOf(await send("sam", { signal }).catch((e: unknown) => e))).toBe("turn-aborted");
  expect(codeOf(await send.predict("sam", { signal }).catch((e: unknown) => e))).toBe("turn-aborted");
  const s = send.stream("sam", { signal });
  const types: string[] = [];
  for await (const e of s) types.push(e.type);
  expect(codeOf(await Promise.resolve(s).catch((e: unknown) => e))).toBe("turn-aborted");
  expect(types).not.toContain("started");
  expect(ran).toBe(0);
});

it("a call a program makes after its turn was stopped does not begin", async () => {
  let innerRan = 0;
  const inner = program("inner", { description: "Send.", input: { to: z.string() } }, async ({ to }) => {
    innerRan += 1;
    return `sent to ${to}`;
  });
  let outerEnded: unknown;
  const outer = program("outer", { description: "Wait, then send.", input: { to: z.string() } }, async ({ to }) => {
    await new Promise((r) => setTimeout(r, 30));
    try {
      return await inner(to);
    } catch (e) {
      outerEnded = e;
      throw e;
    }
  });
  const controller = new AbortController();
  const call = outer("sam", { signal: controller.signal });
  setTimeout(() => controller.abort(), 5);
  expect(codeOf(await call.catch((e: unknown) => e))).toBe("turn-aborted");
  await new Promise((r) => setTimeout(r, 60)); // the body goes on after the call rejected: let it reach its inner call
  expect(codeOf(outerEnded)).toBe("turn-aborted");
  expect(innerRan).toBe(0);
});
