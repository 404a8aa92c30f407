/**
 * Hunt 55: an AI function's answer is checked by its zod output, with its
 * refinements and transforms. A non-text answer is read as JSON, and then as
 * the bare text (an enum or a bare word may be the answer); when neither
 * reads, the problems said are the bare text's: a refinement's own message
 * (`"must be positive"`) about the JSON value the model wrote was replaced
 * by "expected number, received string". The model, asked again, is told
 * the wrong thing (it wrote a number), and the caller's `output-invalid`
 * says the same.
 *
 * Now where the reply's JSON parsed, its issues are the ones said (the bare
 * text's only when it did not parse).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("an answer a refinement refuses", () => {
  it("a number: the model and the caller are told the refinement's message, not 'received string'", async () => {
    const score = ai("score", { description: "Score it.", input: { q: z.string() }, output: z.number().refine((n) => n > 0, "must be positive") });
    const lm = scripted(["<result>\n-1\n</result>", "<result>\n-2\n</result>"]);
    const e = await score("q", { lm }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("output-invalid");
    expect(lm.requests).toHaveLength(2);
    expect(lm.requests[1]!.messages.at(-1)!.content).toContain("must be positive");
    expect((e as FunctaiError).message).toContain("must be positive");
  });

  it("an object: the refinement's message is said, not 'expected object, received string'", async () => {
    const order = ai("order", {
      description: "The order.",
      input: { q: z.string() },
      output: z.object({ qty: z.number() }).refine((o) => o.qty > 0, "qty must be positive"),
    });
    const lm = scripted(['<result>\n{"qty": -1}\n</result>', '<result>\n{"qty": -1}\n</result>']);
    const e = await order("q", { lm }).catch((x: unknown) => x);
    expect((e as FunctaiError).code).toBe("output-invalid");
    expect((e as FunctaiError).message).toContain("qty must be positive");
  });

  it("the answer asked again that passes the refinement is taken, transformed", async () => {
    const score = ai("score", {
      description: "Score it.",
      input: { q: z.string() },
      output: z
        .number()
        .refine((n) => n > 0, "must be positive")
        .transform((n) => ({ n })),
    });
    const lm = scripted(["<result>\n-1\n</result>", "<result>\n3\n</result>"]);
    expect(await score("q", { lm })).toEqual({ n: 3 });
    expect(lm.requests).toHaveLength(2);
  });
});
