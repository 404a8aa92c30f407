/**
 * Text deltas carry the answer's text only: never the reply form's tags,
 * however a model's chunks split them. Checked on the filter itself and on
 * whole streamed calls with a scripted model that streams the same chunks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";
import { scripted } from "../../src/testing/index.js";

/** Splits `text` at the given cut points (a random chunking). */
function chunked(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of at) {
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out;
}

function run(chunks: readonly string[]): string[] {
  const deltas: string[] = [];
  const text = replyText((d) => deltas.push(d));
  for (const c of chunks) text.push(c);
  text.end();
  return deltas;
}

// answers drawn from characters that build tags (so the filter meets near-tags), never a whole tag
const answerChar = fc.constantFrom(..."ab <>/resultRE\n\t.é😀".split(""), "</", "<res", "result>", "</resul");
const answer = fc
  .array(answerChar, { maxLength: 40 })
  .map((cs) => cs.join("").trim())
  // (the reply form's tags are read in any case: `</R` may be the start of `</RESULT>`)
  // (`</result\n>` is a closing tag too)
  .filter((s) => !s.toLowerCase().includes("<result>") && !/<\/result\s*>/i.test(s) && !s.includes("<tool_call>"));
const plainAnswer = answer.filter((s) => !s.includes("<"));
const preamble = fc.constantFrom("Sure, here it is:\n", "Thinking… a < b and c > d.\n\n", "<re", "", "  ");
const cuts = fc.array(fc.nat(200), { maxLength: 25 });

/** Whether `text` ends in a start of `</result>` (a tag a cut-off reply may have begun). */
const endsInCloseTag = (text: string): boolean => [..."</result"].some((_, i) => text.toLowerCase().endsWith("</result".slice(0, i + 1)));

/** What a reply of each kind looks like, and the answer it carries. */
const reply = fc.oneof(
  fc.tuple(answer, fc.constantFrom("\n", "", "  \n")).map(([a, ws]) => ({ text: `<result>${ws}${a}${ws}</result>`, answer: a })),
  fc.tuple(preamble, answer).map(([p, a]) => ({ text: `${p}<result>\n${a}\n</result>`, answer: a })),
  fc.tuple(answer, fc.constantFrom("", "\nHope this helps!", "\n<result>\nagain\n</result>")).map(([a, after]) => ({ text: `<result>\n${a}\n</result>${after}`, answer: a })),
  plainAnswer.map((a) => ({ text: `\n${a}  `, answer: a })),
  // a block never closed (the reply hit its length limit, or the model left the tag out), perhaps cut inside `</result>`
  fc
    .tuple(answer.filter((a) => !endsInCloseTag(a)), fc.constantFrom("", "\n", "\n</", "\n</resu", " </result"))
    .map(([a, cut]) => ({ text: `<result>\n${a}${cut}`, answer: a })),
);

/** A delta holding a piece of a tag that is not in the answer itself. */
const tagPiece = (delta: string, answerText: string): boolean =>
  ["<result", "</result", "result>", "</"].some((piece) => delta.includes(piece) && !answerText.includes(piece));

describe("replyText: the answer's text out of streamed chunks", () => {
  it("a <result> reply in the reply form, split anywhere, gives the inner text without tags", () => {
    expect(run(["<res", "ult>\nHi", " there\n</re", "sult>"]).join("")).toBe("Hi there");
    expect(run(["<result>\n", "Hi", "\n", "</result>"])).toEqual(["Hi"]);
  });

  it("property: concatenated deltas equal the answer as readOutput reads it, and no delta holds a tag's piece", () => {
    fc.assert(
      fc.property(reply, cuts, ({ text, answer: expected }, at) => {
        const deltas = run(chunked(text, at));
        expect(deltas.join("")).toBe(expected);
        expect(readOutput(text, z.string())).toEqual({ ok: true, value: expected });
        for (const d of deltas) {
          expect(d).not.toBe("");
          expect(tagPiece(d, expected)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("streams the body of a <result> block as it comes, not at the end", () => {
    const deltas: string[] = [];
    const text = replyText((d) => deltas.push(d));
    text.push("<result>\nOne two");
    expect(deltas).toEqual(["One two"]);
    text.push(" three\n");
    expect(deltas).toEqual(["One two", " three"]);
    text.push("</result>");
    text.end();
    expect(deltas.join("")).toBe("One two three");
  });

  it("holds text before any tag: dropped as preamble when <result> opens, emitted trimmed at the end when none does", () => {
    const deltas: string[] = [];
    const text = replyText((d) => deltas.push(d));
    text.push("Here you go: ");
    expect(deltas).toEqual([]);
    text.push("plain answer\n");
    text.end();
    expect(deltas).toEqual(["Here you go: plain answer"]);
  });

  it("drops tool calls written as text; keeps the model's own words", () => {
    const reply = 'Let me look.\n<tool_call>\n{"name":"find_order","input":{"id":"A-1"}}\n</tool_call>';
    expect(run(chunked(reply, [3, 17, 20, 44])).join("")).toBe("Let me look.");
  });

  it("a block never closed (cut off by the length limit) is read as its body, without the tags, as it streamed", () => {
    const cut = "<result>\nOrder A-1042 shipped on Mon\n</res";
    const deltas = run(chunked(cut, [4, 9, 20, 33]));
    expect(deltas.join("")).toBe("Order A-1042 shipped on Mon");
    expect(readOutput(cut, z.string())).toEqual({ ok: true, value: "Order A-1042 shipped on Mon" });
    expect(readOutput('<result>\n{"a": 1}', z.object({ a: z.number() }))).toEqual({ ok: true, value: { a: 1 } });
  });

  it("a non-string output streams the JSON in its block, never a tag", () => {
    expect(run(["<result>\n{\"a\":", " 1}\n</res", "ult>"]).join("")).toBe('{"a": 1}');
  });
});

describe("a streamed call on a model answering in the reply form", () => {
  const hello = ai("hello", { description: "Greets.", input: { name: z.string() } });

  it("property: text events equal the result and hold no tag, however the reply is chunked", async () => {
    await fc.assert(
      fc.asyncProperty(reply, cuts, async ({ text, answer: expected }, at) => {
        fc.pre(expected !== "");
        const lm = scripted([{ chunks: chunked(text, at) }]);
        const s = hello.stream({ name: "Sam" }, { lm });
        let streamed = "";
        for await (const e of s) if (e.type === "text") {
          expect(tagPiece(e.delta, expected)).toBe(false);
          streamed += e.delta;
        }
        expect(await s).toBe(expected);
        expect(streamed).toBe(expected);
      }),
      { numRuns: 150 },
    );
  });
});
