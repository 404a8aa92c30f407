/**
 * Hunt 33: an input of type date (`z.date()`) could never be shown in an example.
 *
 * A state is JSON, so an example's date input is kept as its ISO text (as the journal keeps a live date input).
 * `withState` then read that text with the function's input schema, which wants a Date, and refused the example
 * as "saved from another function": labeledFewShot refused every row of such a function, bootstrapFewShot did so
 * only after every run was paid for, and a state saved from such a function never loaded again.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const due = ai("due", { description: "Say the day of the week.", input: { when: z.date(), note: z.string().optional() } });
const rows = [{ when: new Date("2026-01-01T00:00:00.000Z"), result: "Thursday" }];
const answering = (n: number) => scripted(Array.from({ length: n }, () => "<result>\nThursday\n</result>"));
const shown = (lm: ReturnType<typeof scripted>) => JSON.stringify(lm.requests[0]!.messages);

describe("examples with a date input", () => {
  it("labeledFewShot: the row becomes an example, shown with its date, and its state loads again after JSON", async () => {
    const better = labeledFewShot(due, rows);
    expect(better.demos).toHaveLength(1);
    const lm = answering(1);
    await better.using({ lm })({ when: new Date("2026-02-02T00:00:00.000Z") });
    expect(shown(lm)).toContain("2026-01-01T00:00:00.000Z");
    expect(shown(lm)).toContain("Thursday");
    const again = due.withState(JSON.parse(JSON.stringify(better.state())));
    const lm2 = answering(1);
    await again.using({ lm: lm2 })({ when: new Date("2026-02-02T00:00:00.000Z") });
    expect(lm2.requests[0]!.messages).toEqual(lm.requests[0]!.messages);
  });

  it("bootstrapFewShot: a passing run becomes an example (not refused after the runs were paid for)", async () => {
    const teacher = answering(1);
    const better = await bootstrapFewShot(due, rows, { teacher, maxLabeled: 0 });
    expect(teacher.requests).toHaveLength(1);
    expect(better.demos).toHaveLength(1);
  });

  it("text that is not a date's ISO text is still refused for a date input (input-invalid)", () => {
    for (const when of ["tomorrow", "5", "2026-01-01"]) {
      let caught: unknown;
      try {
        due.withState({ instructions: "", demos: [{ inputs: { when }, outputs: { result: "x" } }] });
      } catch (e) {
        caught = e;
      }
      expect((caught as { code?: string }).code, when).toBe("input-invalid");
    }
  });
});
