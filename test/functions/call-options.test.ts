/**
 * A call's input and options are checked before any model call, and a wrong
 * one is a refusal with a code (a rejected promise, never a TypeError thrown
 * from the call itself): unknown input keys, a `signal` that is not an
 * AbortSignal, a `ctx` that is not a frame, options or `using` settings that
 * are not an object.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** What `call` gave: a value, or the code and message of what it rejected or threw with. */
async function outcome(call: () => unknown): Promise<{ value?: unknown; code?: string; message?: string; thrown?: boolean }> {
  let promise: unknown;
  try {
    promise = call();
  } catch (e) {
    return { thrown: true, code: (e as FunctaiError).code, message: (e as Error).message };
  }
  try {
    return { value: await promise };
  } catch (e) {
    return { code: e instanceof FunctaiError ? e.code : `not a FunctaiError: ${String(e)}`, message: (e as Error).message };
  }
}

describe("input keys the function does not have are refused, not dropped", () => {
  const two = ai("two", { description: "d", input: { order_id: z.string(), note: z.string().optional() } });

  it("a misspelt optional input (it was dropped: the model never saw the note)", async () => {
    const lm = scripted(["ok"]);
    const o = await outcome(() => two({ order_id: "A-1042", nte: "fragile" } as never, { lm }));
    expect(o.code).toBe("input-invalid");
    expect(o.message).toMatch(/nte/);
    expect(lm.requests).toHaveLength(0);
  });

  it("with one input, its object form with another key says which key", async () => {
    const one = ai("one", { description: "d", input: { q: z.string() } });
    const lm = scripted(["ok"]);
    const o = await outcome(() => one({ q: "hi", extra: 1 } as never, { lm }));
    expect(o.code).toBe("input-invalid");
    expect(o.message).toMatch(/extra/);
    expect(lm.requests).toHaveLength(0);
  });

  it("a function of no inputs given some", async () => {
    const none = ai("none", { description: "d", input: {} });
    const lm = scripted(["ok"]);
    expect((await outcome(() => none({ q: "hi" } as never, { lm }))).code).toBe("input-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("predict and stream refuse them too; a program as well", async () => {
    const lm = scripted(["ok"]);
    expect((await outcome(() => two.predict({ order_id: "A", x: 1 } as never, { lm }))).code).toBe("input-invalid");
    expect((await outcome(() => two.stream({ order_id: "A", x: 1 } as never, { lm }))).code).toBe("input-invalid");
    const p = program("p", { description: "d", input: { a: z.number() } }, ({ a }) => String(a));
    expect((await outcome(() => p({ a: 1, b: 2 } as never))).code).toBe("input-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("what is right still runs: the object form, the value alone, a value alone that is an object with other keys", async () => {
    const lm = scripted(["a", "b", "c"]);
    expect(await two({ order_id: "A-1042" }, { lm })).toBe("a");
    const one = ai("one", { description: "d", input: { q: z.string() } });
    expect(await one("hi", { lm })).toBe("b");
    const filter = ai("filter", { description: "d", input: { f: z.object({ kind: z.string(), f: z.string() }) } });
    expect(await filter({ kind: "x", f: "y" } as never, { lm })).toBe("c");
  });
});

describe("call options that are not what they say are refused before any model call", () => {
  const one = ai("one", { description: "d", input: { q: z.string() } });

  it("a signal that is not an AbortSignal (a TypeError from inside the turn before)", async () => {
    const lm = scripted(["ok"]);
    for (const call of [() => one("hi", { lm, signal: "stop" as never }), () => one.predict("hi", { lm, signal: {} as never })]) {
      const o = await outcome(call);
      expect(o).toMatchObject({ code: "settings-invalid" });
      expect(o.message).toMatch(/signal must be an AbortSignal/);
    }
    expect(lm.requests).toHaveLength(0);
  });

  it("a ctx that is not a frame or a context holding one (null threw a TypeError from the call itself; {} was ignored)", async () => {
    const lm = scripted(["ok"]);
    for (const ctx of [null, "frame", {}, { frame: 1 }]) {
      const o = await outcome(() => one("hi", { lm, ctx: ctx as never }));
      expect(o.thrown, `ctx ${JSON.stringify(ctx)}`).toBeUndefined();
      expect(o.code).toBe("settings-invalid");
      expect(o.message).toMatch(/ctx must be/);
    }
    expect(lm.requests).toHaveLength(0);
  });

  it("options that are not an object (a string was taken as no options)", async () => {
    const lm = scripted(["ok"]);
    const o = await outcome(() => one("hi", "fast" as never));
    expect(o.code).toBe("settings-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("using() of something that is not settings", () => {
    for (const settings of [null, "gpt-4.1-mini", 3]) {
      expect(() => one.using(settings as never), JSON.stringify(settings)).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    }
  });
});
