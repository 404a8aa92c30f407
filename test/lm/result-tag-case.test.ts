/**
 * A model that writes the reply form's tags in another case (`<RESULT>`,
 * `<Result>`): its answer was the whole reply, tags included, for a text
 * output, and refused for any other. The tags are read in any case, by
 * readOutput and by the streamed text alike (the two still agree).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";

function streamed(chunks: readonly string[]): string {
  const deltas: string[] = [];
  const text = replyText((d) => deltas.push(d));
  for (const c of chunks) text.push(c);
  text.end();
  return deltas.join("");
}

/** The reply cut into chunks at these places. */
const chunked = (text: string, at: readonly number[]): string[] => {
  const cuts = [...new Set(at.map((n) => n % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out;
};

describe("the <result> tags in another case", () => {
  it("a text answer is read without its tags", () => {
    for (const text of ["<RESULT>\nIt shipped.\n</RESULT>", "Here:\n<Result>It shipped.</Result>", "<result>\nIt shipped.\n</RESULT>"]) {
      expect(readOutput(text, z.string()), text).toEqual({ ok: true, value: "It shipped." });
      expect(streamed([text]), text).toBe("It shipped.");
    }
  });

  it("a JSON answer is read from its block", () => {
    expect(readOutput('<RESULT>\n{"a": 1}\n</RESULT>', z.object({ a: z.number() }))).toEqual({ ok: true, value: { a: 1 } });
    expect(readOutput("<Result>\n42", z.number())).toEqual({ ok: true, value: 42 });
  });

  it("a block cut off inside its closing tag, in another case, drops that piece", () => {
    expect(readOutput("<RESULT>\nIt shipped.\n</RES", z.string())).toEqual({ ok: true, value: "It shipped." });
    expect(streamed(["<RESULT>\nIt shipped.\n</RES"])).toBe("It shipped.");
  });

  it("property: however the tags are cased and the reply chunked, the stream shows what readOutput reads", () => {
    const casing = fc.array(fc.boolean(), { minLength: 8, maxLength: 8 });
    const cased = (tag: string, up: readonly boolean[]) => [...tag].map((c, i) => (up[i % up.length] ? c.toUpperCase() : c)).join("");
    const answer = fc.constantFrom("It shipped.", "a < b", "x </resul y", "Done.\nTwo lines.");
    fc.assert(
      fc.property(answer, casing, casing, fc.array(fc.nat(60), { maxLength: 8 }), (a, up1, up2, at) => {
        const text = `Sure:\n${cased("<result>", up1)}\n${a}\n${cased("</result>", up2)}\nBye`;
        expect(readOutput(text, z.string())).toEqual({ ok: true, value: a });
        expect(streamed(chunked(text, at))).toBe(a);
      }),
      { numRuns: 500 },
    );
  });
});
