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

  it("the options as documented are taken, left out or undefined as their defaults", () => {
    for (const options of [{}, { form: "reply", chunks: 3, nativeTools: false, model: "m" }, { form: "plain", chunks: "words", nativeTools: true }, { form: undefined, chunks: undefined }] as ScriptedOptions[])
      expect(() => scripted(["Hi."], options)).not.toThrow();
    expect(scripted(["Hi."], { nativeTools: false }).nativeTools).toBe(false);
  });
});
