/**
 * Hunt 34: a date inside an object (or list) input. A state is JSON, so such a date is kept as its ISO text; hunt 33
 * read a top-level date input's text back as a Date, but not one nested deeper: `withState` refused every example of
 * such a function as "saved from another function", so labeledFewShot refused its rows, bootstrapFewShot refused
 * once every run was paid for, and a saved state never loaded again.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const plan = ai("plan", {
  description: "Say how many days the trip lasts.",
  input: {
    trip: z.object({ from: z.date(), to: z.date().optional(), stops: z.array(z.date()), city: z.string() }),
    by: z.record(z.string(), z.date()).optional(),
    when: z.union([z.date(), z.number()]).optional(),
  },
});
const day = (d: number) => new Date(Date.UTC(2026, 0, d));
const rows = [
  { trip: { from: day(1), to: day(4), stops: [day(2), day(3)], city: "Oslo" }, by: { booked: day(1) }, when: day(1), result: "3" },
  { trip: { from: day(5), stops: [], city: "Rome" }, result: "1" },
];
const answering = (n: number) => scripted(Array.from({ length: n }, () => "<result>\n3\n</result>"));
const live = { trip: { from: day(10), stops: [], city: "Bern" } };

describe("examples with dates inside object inputs", () => {
  it("labeledFewShot keeps the rows, shows their dates, and its state loads again after JSON, sending the same request", async () => {
    const better = labeledFewShot(plan, rows);
    expect(better.demos).toHaveLength(2);
    const lm = answering(1);
    await better.using({ lm })(live);
    const shown = JSON.stringify(lm.requests[0]!.messages);
    for (const d of [1, 2, 3, 4, 5]) expect(shown).toContain(day(d).toISOString());
    const again = plan.withState(JSON.parse(JSON.stringify(better.state())));
    const lm2 = answering(1);
    await again.using({ lm: lm2 })(live);
    expect(lm2.requests[0]!.messages).toEqual(lm.requests[0]!.messages);
  });

  it("bootstrapFewShot keeps a passing run (not refused after the runs were paid for)", async () => {
    const teacher = answering(2);
    const better = await bootstrapFewShot(plan, [rows[0]!], { teacher, maxLabeled: 0 });
    expect(teacher.requests).toHaveLength(1);
    expect(better.demos).toHaveLength(1);
  });

  it("a list of many dates loads (each read back, not one a round)", () => {
    const stops = Array.from({ length: 40 }, (_, i) => day(i + 1).toISOString());
    const loaded = plan.withState({
      instructions: "",
      demos: [{ inputs: { trip: { from: stops[0], stops, city: "Oslo" } }, outputs: { result: "40" } }],
    });
    expect(loaded.demos).toHaveLength(1);
    // the state keeps the example as given: text, not Dates
    expect(loaded.state().demos[0]!.inputs).toEqual({ trip: { from: stops[0], stops, city: "Oslo" } });
  });

  it("text that is not a date's ISO text, or a date where the schema wants text, is still refused (input-invalid)", () => {
    const refused = (inputs: Record<string, unknown>) => {
      try {
        plan.withState({ instructions: "", demos: [{ inputs, outputs: { result: "x" } }] });
      } catch (e) {
        return (e as { code?: string }).code;
      }
      return "loaded";
    };
    expect(refused({ trip: { from: "tomorrow", stops: [], city: "Oslo" } })).toBe("input-invalid");
    expect(refused({ trip: { from: "2026-01-01", stops: [], city: "Oslo" } })).toBe("input-invalid");
    expect(refused({ trip: { from: day(1).toISOString(), stops: ["soon"], city: "Oslo" } })).toBe("input-invalid");
    expect(refused({ trip: { from: day(1).toISOString(), stops: [], city: 5 } })).toBe("input-invalid");
    expect(refused({ trip: { from: day(1).toISOString(), stops: [], city: day(1).toISOString() } })).toBe("loaded");
  });
});
