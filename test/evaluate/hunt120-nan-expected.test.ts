/**
 * A row whose expected answer is NaN (what a CSV or data-frame reader gives for an empty numeric cell): no answer a
 * model writes is NaN (JSON has none), so the row scores 0 whatever the function does, and pulls the run's mean down
 * without a word. An expected column holding undefined (an empty cell) names no answer, and a row naming none is
 * refused up front; NaN is read as a value.
 *
 * Decided (the lead; DESIGN names undefined only): an expected NaN names no answer, as undefined does (expectedOf in
 * rows.ts), so such a row is refused before any model call, naming it.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, evaluate } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const count = ai("count", { description: "Count the words.", input: { text: z.string() }, output: z.number() });

describe("a row whose expected answer is NaN", () => {
  it("is refused before any model call, as a row with an empty expected cell is", async () => {
    const lm = scripted(["<result>2</result>", "<result>3</result>"]);
    const rows = [
      { text: "two words", result: 2 },
      { text: "three more words", result: Number.NaN },
    ];
    const got = await evaluate(count.using({ lm }), rows).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "input-invalid" });
    expect(String((got as Error).message)).toMatch(/row 2 has no expected column/);
    expect(lm.requests).toHaveLength(0);
  });
});
