/**
 * Hunt 150: an AI function's answer schema is written as JSON Schema into
 * the system message, and writing it runs the schema's own code (a
 * default's function) and writes JSON. One that cannot be written (a
 * `.meta()` holding a BigInt, a default whose function throws, a cyclic
 * default) made every call reject with zod's or JSON's raw error, without a
 * code ("Error converting schema to JSON.", a TypeError), where a tool's
 * input schema of the same kind is refused with a FunctaiError naming it.
 * Now the call is refused (`settings-invalid`, naming the function and what
 * was thrown) before any model call. Checked at the first call, as a lazy
 * answer's types are: a z.lazy may name a schema defined after the function.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusalOf } from "../fixtures/refused.js";

const cyclic = (): unknown => {
  const o: Record<string, unknown> = {};
  o.self = o;
  return o;
};

describe("an answer schema that cannot be written as JSON Schema", () => {
  for (const [name, output, said] of [
    ["a .meta() holding a BigInt", z.object({ a: z.string() }).meta({ since: 2n } as never), /Error converting schema to JSON/],
    [
      "a default whose function throws",
      z.object({
        a: z.string().default(() => {
          throw new Error("config not loaded");
        }),
      }),
      /config not loaded/,
    ],
    ["a cyclic default", z.object({ a: z.any().default(cyclic) }), /circular/],
  ] as const)
    it(`${name}: refused with settings-invalid, naming the function, and no model call`, async () => {
      const lm = scripted(['<result>\n{"a":"x"}\n</result>']);
      const plan = ai("plan", { description: "Plan.", input: { q: z.string() }, output });
      const e = await refusalOf(() => plan("go", { lm }));
      expect(e.code).toBe("settings-invalid");
      expect(e.message).toMatch(/^plan: its output schema cannot be written as JSON Schema for the model \(/);
      expect(e.message).toMatch(said);
      expect(e.message).toContain("nothing was sent");
      // predict and stream are refused the same way
      expect((await refusalOf(() => plan.predict("go", { lm }))).code).toBe("settings-invalid");
      expect((await refusalOf(() => plan.stream("go", { lm }))).code).toBe("settings-invalid");
      expect(lm.requests).toHaveLength(0);
    });

  it("a default that can be written is shown to the model and taken (a guard)", async () => {
    const lm = scripted(['<result>\n{"a":"x"}\n</result>']);
    const plan = ai("plan", { description: "Plan.", input: { q: z.string() }, output: z.object({ a: z.string(), n: z.number().default(() => 3) }) });
    expect(await plan("go", { lm })).toEqual({ a: "x", n: 3 });
    expect(lm.requests[0]!.messages[0]!.content).toContain('"default":3');
  });
});
