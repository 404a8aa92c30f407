/**
 * hunt 134: tools offered as text (`nativeTools: false`), a list of calls in
 * one `<tool_call>` block (a JSON list, or Llama's pythonic one: read as
 * those calls since hunt 131), streamed.
 *
 * A streamed reply's `text` events hold back what may be a call, so a user
 * never sees a call's text as the answer's. A block whose body began with
 * `[` was not known as a call while it streamed: a `<result>` tag inside
 * its input (`save_note(text="Wrap it in <result> tags.")`) was taken for
 * the answer's opening, and the rest of the call (`tags.")]</tool_call>`)
 * streamed out as answer text, though the reply read whole was only the
 * call. Read whole, such a block the model never closed (it left the
 * closing tag out, or the reply was cut off by its length limit inside
 * it) was text: the call's text was the answer, the tool never ran, where
 * a block holding one call's JSON was a call. Both now read a list's body
 * as a call's, whatever the chunks: held while it streams, the calls run.
 *
 * The same with no block at all: a model's own call form written as the
 * whole reply (Llama's pythonic list, Llama 3.1's JSON, Mistral's list),
 * read whole as those calls, streamed the rest of its input as the answer
 * from a `<result>` in it. Text that begins as such a form is now held when
 * a `<result>` follows, and read whole when the reply ends.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type TurnEvent } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { claudeTextStream } from "./anthropic-sse.js";
import { chunkEvent, textSse } from "./fixtures/hunt51-wire.js";
import { chunkedText } from "../lm/fixtures.js";
import { modelsOver } from "./fixtures/models.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt, claude } = modelsOver(() => server, { gpt: "meta-llama/Llama-3.2-3B-Instruct", apiKey: "none", maxRetries: 0 });

const saved: unknown[] = [];
const saveNote = tool("save_note", { description: "Saves a note.", input: { text: z.string() }, effects: "changes" }, (input) => {
  saved.push(input);
  return { saved: true };
});
const notes = ai("notes", { description: "Do what the user asks with their notes.", input: { ask: z.string() }, tools: [saveNote] });

const PYTHONIC = '<tool_call>\n[save_note(text="Wrap the answer in <result> tags.")]\n</tool_call>';
const JSON_LIST = '<tool_call>\n[{"name": "save_note", "arguments": {"text": "Wrap the answer in <result> tags."}}]\n</tool_call>';
const ANSWER = "<result>\nSaved.\n</result>";

/** The `text` events of a streamed call of `notes`, joined. */
async function shownText(lm: ReturnType<typeof gpt>): Promise<string> {
  const shown: string[] = [];
  for await (const e of notes.stream("Note: wrap the answer in <result> tags.", { lm }) as AsyncIterable<TurnEvent>)
    if (e.type === "text") shown.push(e.delta);
  return shown.join("");
}

describe("streamed: a list of calls whose input holds <result> shows nothing of the call", () => {
  for (const [name, block] of [
    ["pythonic", PYTHONIC],
    ["JSON", JSON_LIST],
  ] as const) {
    for (const size of [1, 5, 12, block.length]) {
      it(`openai, ${name} list, chunks of ${size}: the call runs, only the answer is shown`, async () => {
        saved.length = 0;
        server.reply({ sse: textSse(block, size) }, { sse: textSse(ANSWER, size) });
        expect(await shownText(gpt({ nativeTools: false }))).toBe("Saved.");
        expect(saved).toEqual([{ text: "Wrap the answer in <result> tags." }]);
      });
    }
    it(`anthropic, ${name} list, the tag and the body split across deltas: only the answer is shown`, async () => {
      saved.length = 0;
      const deltas = ["<tool_", "call>\n[", block.slice("<tool_call>\n[".length, -20), block.slice(-20)];
      expect(deltas.join("")).toBe(block);
      server.reply({ sse: claudeTextStream(deltas) }, { sse: claudeTextStream([ANSWER]) });
      expect(await shownText(claude({ nativeTools: false }))).toBe("Saved.");
      expect(saved).toEqual([{ text: "Wrap the answer in <result> tags." }]);
    });
  }
});

describe("a list of calls in a <tool_call> block the model never closed is those calls, as one call's JSON is", () => {
  it("openai, the closing tag left out (finish stop): the call runs, its text is no answer", async () => {
    saved.length = 0;
    server.reply({ sse: textSse('Let me save it.\n<tool_call>\n[save_note(text="milk")]', 6) }, { sse: textSse(ANSWER) });
    // (the words before the call are the model's: shown, as around any call)
    expect(await shownText(gpt({ nativeTools: false }))).toBe("Let me save it.Saved.");
    expect(saved).toEqual([{ text: "milk" }]);
  });

  it("anthropic, the closing tag left out: the JSON list's calls run in order", async () => {
    saved.length = 0;
    const block = '<tool_call>\n[{"name": "save_note", "arguments": {"text": "milk"}}, {"name": "save_note", "arguments": {"text": "eggs"}}]';
    server.reply({ sse: claudeTextStream([block]) }, { sse: claudeTextStream([ANSWER]) });
    await expect(notes("Note milk and eggs.", { lm: claude({ nativeTools: false }) })).resolves.toBe("Saved.");
    expect(saved).toEqual([{ text: "milk" }, { text: "eggs" }]);
  });

  it("openai, cut off by the length limit inside it: a call cut short, which does not run", async () => {
    saved.length = 0;
    const cut = textSse('<tool_call>\n[save_note(text="milk"), save_note(text="eg', 5).replace(chunkEvent({}, "stop"), chunkEvent({}, "length"));
    expect(cut).toContain('"finish_reason":"length"');
    server.reply({ sse: cut }, { sse: textSse(ANSWER) });
    expect(await shownText(gpt({ nativeTools: false }))).toBe("Saved.");
    expect(saved).toEqual([]);
    // the model was told its call was cut short, and asked again
    const second = JSON.stringify(server.requests[1]!.body.messages);
    expect(second).toContain("<tool_result");
    expect(server.requests).toHaveLength(2);
  });
});

describe("streamed: a model's own call form as the whole reply, its input holding <result>, shows nothing of the call", () => {
  // Llama 3.2's pythonic list, Llama 3.1's JSON (after its <|python_tag|>), Mistral's list: read whole as those calls
  // (see pythonic-calls.ts, json-calls.ts); the stream took the <result> in the input for the answer's opening
  const FORMS = [
    '[save_note(text="Wrap the answer in <result> tags.")]',
    '<|python_tag|>{"name": "save_note", "parameters": {"text": "Wrap the answer in <result> tags."}}',
    '[{"name": "save_note", "arguments": {"text": "<result>Saved</result>"}}]',
  ];
  for (const form of FORMS) {
    it(`openai: ${form.slice(0, 40)}…`, async () => {
      saved.length = 0;
      server.reply({ sse: textSse(form, 4) }, { sse: textSse(ANSWER, 4) });
      expect(await shownText(gpt({ nativeTools: false }))).toBe("Saved.");
      expect(saved).toHaveLength(1);
    });
  }
  it("anthropic, after a reasoning block: the call runs, only the answer is shown", async () => {
    saved.length = 0;
    const reply = `<think>\nThe user wants a note saved.\n</think>\n${FORMS[0]}`;
    server.reply({ sse: claudeTextStream([reply.slice(0, 60), reply.slice(60, 80), reply.slice(80)]) }, { sse: claudeTextStream([ANSWER]) });
    expect(await shownText(claude({ nativeTools: false }))).toBe("Saved.");
    expect(saved).toEqual([{ text: "Wrap the answer in <result> tags." }]);
  });
});

/** The answer's text as the whole reply is read: a reply with calls shows its words, one without is the answer. */
function wholeText(text: string): string {
  const reply = fromTextResponse({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });
  const answer = readOutput(reply.toolCalls.length > 0 ? reply.text : text, z.string());
  return answer.ok ? String(answer.value) : "";
}

describe("property: however the chunks fall, the stream shows what the whole reply reads as the answer", () => {
  const BODIES = [
    '[save_note(text="Wrap it in <result> tags.")]',
    '[save_note(text="<result>Yes</result>"), save_note(text="b")]',
    '[{"name": "save_note", "arguments": {"text": "a <result> b"}}]',
    '[\n  {"name": "save_note", "input": {"text": "</result> then <result>"}}\n]',
    '```json\n[{"name": "save_note", "arguments": {"text": "<result>"}}]\n```',
  ];
  it("a list of calls, closed or not, before or inside the <result> block, words around it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("", "<result>\n", "Let me save it.\n", "<result>\nLet me save it.\n"),
        fc.constantFrom(...BODIES),
        fc.constantFrom("\n", "", "\n\n"),
        fc.constantFrom("\n</tool_call>", "</tool_call>", ""),
        fc.constantFrom("", "\nDone.", "\n<result>\nSaved.\n</result>", "\nSaved.\n</result>"),
        fc.array(fc.nat(), { maxLength: 8 }),
        (before, body, gap, close, after, cuts) => {
          const text = `${before}<tool_call>${gap}${body}${close}${close === "" ? "" : after}`;
          expect(chunkedText(text, cuts), text).toBe(wholeText(text));
          // the call's text is never shown
          expect(chunkedText(text, cuts)).not.toContain("save_note");
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("a model's own call form as the whole reply, after reasoning or not, a <result> after it or not", () => {
    const FORMS = [
      '[save_note(text="a <result> b")]',
      '{"name": "save_note", "parameters": {"text": "<result>x"}}',
      '```json\n[{"name": "save_note", "arguments": {"text": "<result>x</result>"}}]\n```',
      '<|python_tag|>{"name": "save_note", "parameters": {"text": "<result>"}}',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom("", "<think>\nSave it.\n</think>\n", "Save it.\n</think>\n"),
        fc.constantFrom(...FORMS),
        fc.constantFrom("", "\n<result>\nSaved.\n</result>", "\nSaved.\n</result>"),
        fc.array(fc.nat(), { maxLength: 8 }),
        (before, form, after, cuts) => {
          const text = `${before}${form}${after}`;
          expect(chunkedText(text, cuts), text).toBe(wholeText(text));
          expect(chunkedText(text, cuts)).not.toContain("save_note");
        },
      ),
      { numRuns: 3000 },
    );
  });
});
