/**
 * A worked example's inputs read by an input schema that throws (a transform or refinement that throws, an async
 * refinement zod cannot run synchronously: its sync parse throws $ZodAsyncError) refuse the state as a misfit
 * example is refused: a FunctaiError input-invalid naming the example, saying the schema threw, the thrown error
 * kept as its cause. DESIGN: "Every error a user can see is a FunctaiError with a code"; a plain call of the same
 * function says `input-invalid: … the input could not be read (…)`, and evaluate's rows say the same
 * (src/evaluate/rows.ts, checkInputs). (It threw the bare error: withState's check of an example's inputs
 * (src/optimize/demo.ts) called `safeParse` with no try/catch, and safeParse only catches zod issues; and the AI
 * function (src/functions/ai.ts, define) read each example's inputs a second time, with `parse`, to show them.)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, labeledFewShot, type AIState } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const stateOf = (...questions: string[]): AIState => ({
  instructions: "Answer.",
  demos: questions.map((question) => ({ inputs: { question }, outputs: { result: "a" } })),
});

/** What `f()` throws (null when it returns). */
const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return null;
};

describe("withState: an example's inputs read by a schema that throws", () => {
  it("a refinement that throws: refused input-invalid naming the example, the thrown error its cause", () => {
    const picky = ai("picky", {
      description: "Answer.",
      input: {
        question: z.string().refine((v) => {
          if (v === "bad") throw new Error("refinement threw on a bad example");
          return true;
        }),
      },
    });
    const e = thrown(() => picky.withState(stateOf("good", "bad")));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({
      code: "input-invalid",
      message: expect.stringMatching(/^picky\.withState: example 2's inputs could not be read \(refinement threw on a bad example\): picky's input schema threw/),
    });
    expect((e as FunctaiError).cause).toMatchObject({ message: "refinement threw on a bad example" });
    // the examples that fit still load
    expect(picky.withState(stateOf("good")).demos).toHaveLength(1);
  });

  it("a transform that throws: likewise", () => {
    const trimmed = ai("trimmed", {
      description: "Answer.",
      input: {
        question: z.string().transform(() => {
          throw new Error("transform threw");
        }),
      },
    });
    const e = thrown(() => trimmed.withState(stateOf("q")));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/example 1's inputs could not be read \(transform threw\)/) });
    expect((e as FunctaiError).cause).toMatchObject({ message: "transform threw" });
  });

  it("an async refinement: likewise (zod's $ZodAsyncError its cause), as a plain call refuses it", async () => {
    const checked = ai("checked", { description: "Answer.", input: { question: z.string().refine(async (v) => v.length > 0) } });
    await expect(checked("q", { lm: scripted(["a"]) })).rejects.toMatchObject({ code: "input-invalid" });
    const e = thrown(() => checked.withState(stateOf("q")));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/^checked\.withState: example 1's inputs could not be read/) });
    expect((e as FunctaiError).cause).toBeInstanceOf(Error);
    expect((e as FunctaiError).cause).not.toBeInstanceOf(FunctaiError);
  });

  it("labeledFewShot over rows its checks read once, then a schema that throws: refused input-invalid, not a bare error", () => {
    let reads = 0;
    const fickle = ai("fickle", {
      description: "Answer.",
      input: {
        question: z.string().refine(() => {
          reads++;
          if (reads > 1) throw new Error("read a second time");
          return true;
        }),
      },
    });
    const e = thrown(() => labeledFewShot(fickle, [{ question: "q", result: "a" }]));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/example 1's inputs could not be read \(read a second time\)/) });
  });
});

describe("an AI function shows its examples' inputs as withState read them", () => {
  it("each example's inputs are read once when the state loads: a schema that throws on a later read cannot throw a bare error from withState", async () => {
    let reads = 0;
    const once = ai("once", {
      description: "Answer.",
      input: {
        question: z
          .string()
          .trim()
          .transform((v) => {
            reads++;
            if (reads > 1) throw new Error("read a second time");
            return v;
          }),
      },
    });
    const loaded = once.withState(stateOf("  q  ")); // (threw the bare "read a second time")
    expect(reads).toBe(1);
    // what the model is shown is that read (trimmed), and the state keeps the example as given
    expect(loaded.state().demos[0]!.inputs).toEqual({ question: "  q  " });
    const lm = scripted(["a"]);
    reads = Number.NEGATIVE_INFINITY; // (the live call reads its input too)
    await loaded.using({ lm })("live");
    const users = lm.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual(["<question>\nq\n</question>", "<question>\nlive\n</question>"]);
  });
});
