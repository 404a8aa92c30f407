/**
 * scripted()'s options are checked when the model is made: a mistyped option
 * (`form: "replies"`, `nativeTools: "false"`, `chunks: "lines"`) is refused
 * with settings-invalid, not read as the default and the test quietly run
 * against another model than the one asked for.
 */
import { describe, expect, it } from "vitest";
import { scripted, type ScriptedOptions } from "../../src/testing/index.js";

describe("scripted: options", () => {
  it("an option of the wrong kind or value is refused (settings-invalid) when the model is made, naming it", () => {
    const odd: [string, unknown][] = [
      ["form", "replies"],
      ["nativeTools", "false"],
      ["nativeTools", 0],
      ["chunks", "lines"],
      ["chunks", 0],
      ["chunks", 2.5],
      ["chunks", Number.NaN],
      ["model", 42],
      ["model", ""],
    ];
    for (const [key, value] of odd)
      expect(() => scripted(["Hi."], { [key]: value } as ScriptedOptions), `${key}: ${String(value)}`).toThrow(
        expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining(key) }),
      );
  });

  it("the options as documented are taken, left out or undefined as their defaults", async () => {
    const cases: [ScriptedOptions, { model: string; nativeTools: boolean; text: string; streamed: string[] }][] = [
      [{}, { model: "scripted", nativeTools: true, text: "Hi there.", streamed: ["Hi ", "there."] }],
      [{ form: "reply", chunks: 3, nativeTools: false, model: "m" }, { model: "m", nativeTools: false, text: "<result>\nHi there.\n</result>", streamed: ["<re", "sul", "t>\n", "Hi ", "the", "re.", "\n</", "res", "ult", ">"] }],
      [{ form: "plain", chunks: "words", nativeTools: true }, { model: "scripted", nativeTools: true, text: "Hi there.", streamed: ["Hi ", "there."] }],
      [{ form: undefined, chunks: undefined } as unknown as ScriptedOptions, { model: "scripted", nativeTools: true, text: "Hi there.", streamed: ["Hi ", "there."] }],
    ];
    for (const [options, want] of cases) {
      const lm = scripted(["Hi there."], options);
      const streamed: string[] = [];
      const reply = await lm.generate({ messages: [{ role: "user", content: "hi" }], tools: [] }, { onText: (t) => streamed.push(t) });
      expect({ model: lm.model, nativeTools: lm.nativeTools, text: reply.text, streamed }, JSON.stringify(options)).toEqual(want);
    }
  });
});
