/**
 * Hunt 34: an output named like an input (a rewriter: input `text`, output `{ text, lang }`). By default the
 * expected outputs are the columns named like the outputs, so the expected `text` was the row's input `text`:
 * evaluate scored each rewrite against the text it was given (and case folding let an upper-cased copy pass),
 * labeledFewShot and bootstrapFewShot showed examples answering with their own input. Such a run is refused up
 * front (input-invalid, before any model call), saying to name the expected column with `expected`; with it, or
 * with a metric of one's own (evaluate), it runs.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, labeledFewShot, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const output = z.object({ text: z.string(), lang: z.string() });
const upper = program("upper", { description: "Rewrite.", input: { text: z.string() }, output }, ({ text }) => ({
  text: text.toUpperCase(),
  lang: "en",
}));
const rewrite = ai("rewrite", { description: "Rewrite politely.", input: { text: z.string() }, output });
const rows = [{ text: "give it back", lang: "en", polite: "Could you return it, please?" }];

const codeOf = async (run: () => unknown) => {
  try {
    await run();
  } catch (e) {
    return { code: (e as { code?: string }).code, message: String((e as Error).message) };
  }
  return { code: "ran", message: "" };
};

describe("an output named like an input", () => {
  it("evaluate with the default metric is refused up front, naming the output and the way out", async () => {
    const refused = await codeOf(() => evaluate(upper, rows));
    expect(refused.code).toBe("input-invalid");
    expect(refused.message).toMatch(/text/);
    expect(refused.message).toMatch(/expected/);
  });

  it("with expected naming the columns, or a metric of one's own, it runs", async () => {
    const ev = await evaluate(upper, rows, { expected: { text: "polite", lang: "lang" } });
    expect(ev.rows[0]!.scores).toEqual({ exact_match: 0, text_match: 0, lang_match: 1 });
    const own = await evaluate(upper, rows, { metric: (_row, p) => String(p.text).length > 0 });
    expect(own.score).toBe(1);
  });

  it("labeledFewShot and bootstrapFewShot are refused before any model call", async () => {
    expect((await codeOf(() => labeledFewShot(rewrite, rows))).code).toBe("input-invalid");
    const teacher = scripted([]);
    expect((await codeOf(() => bootstrapFewShot(rewrite, rows, { teacher }))).code).toBe("input-invalid");
    expect(teacher.requests).toHaveLength(0);
    const shown = labeledFewShot(rewrite, rows, { expected: { text: "polite", lang: "lang" } });
    expect(shown.demos[0]!.outputs).toEqual({ result: { text: "Could you return it, please?", lang: "en" } });
  });
});
