/**
 * Hunt 162: a worked example holding a number JSON writes as null (Infinity, NaN, an invalid Date). A state is
 * JSON, and examples were copied through it without a look: a labeled row expecting Infinity (what a data reader
 * gives for "inf") became an example answered `null`, and the model was taught that answer without a word;
 * bootstrapFewShot kept such a row among its labeled examples, and withState took a state built in code holding
 * one. Each is refused (input-invalid, naming the row or the example and the place) before any model call.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const count = ai("count", { description: "Count the words.", input: { text: z.string() }, output: z.number() });
const total = ai("total", { description: "Say the order's total.", input: { order: z.any() }, output: z.number() });

const refusal = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe("worked examples holding a number JSON writes as null", () => {
  it("labeledFewShot refuses a row expecting Infinity, where it was an example answered null", () => {
    for (const bad of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const got = refusal(() =>
        labeledFewShot(count, [
          { text: "two words", result: 2 },
          { text: "a", result: bad },
        ]),
      );
      expect(got, String(bad)).toMatchObject({
        code: "input-invalid",
        message: expect.stringMatching(/count: row 2 is not JSON \(outputs\.result is -?Infinity.*the model would read null/),
      });
    }
  });

  it("bootstrapFewShot refuses it before the teacher is asked", async () => {
    const teacher = scripted(["<result>2</result>", "<result>1</result>"]);
    const rows = [
      { text: "two words", result: 2 },
      { text: "a", result: Number.POSITIVE_INFINITY },
    ];
    const got = await bootstrapFewShot(count, rows, { teacher, metric: () => 1 }).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2 is not JSON \(outputs\.result is Infinity/) });
    expect(teacher.requests).toHaveLength(0);
  });

  it("withState refuses an example holding one, in its answer or its inputs", () => {
    const answer = refusal(() =>
      count.withState({ instructions: "", demos: [{ inputs: { text: "a" }, outputs: { result: Number.POSITIVE_INFINITY } }] }),
    );
    expect(answer).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/outputs\.result is Infinity/) });
    const inputs = refusal(() =>
      total.withState({ instructions: "", demos: [{ inputs: { order: { total: Number.NaN } }, outputs: { result: 3 } }] }),
    );
    expect(inputs).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/order\.total is NaN/) });
  });

  it("guard: an example holding null is kept and shown as written", async () => {
    const better = total.withState({ instructions: "", demos: [{ inputs: { order: { total: null } }, outputs: { result: 0 } }] });
    const lm = scripted(["<result>3</result>"]);
    expect(await better.using({ lm })({ order: { total: 3 } })).toBe(3);
    expect(JSON.stringify(lm.requests[0]!.messages)).toContain('\\"total\\":null');
  });
});
