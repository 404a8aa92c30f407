/**
 * A `<result>` block never closed: read to the reply's end when the reply
 * ended normally (the model left the tag out), unreadable when the reply was
 * cut off by its length limit or stopped by a refusal or content filter (what is there is only the answer's start,
 * which may read as a valid value all the same); so is a reply cut off with
 * no block at all.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutput } from "../../src/lm/prompt.js";

describe("readOutput and a reply cut off by its length limit", () => {
  it("an unclosed block in a reply cut at its length limit is unreadable, whatever it holds", () => {
    for (const [text, output] of [
      ["<result>\n12", z.number()],
      ["<result>\nIt shipped on Mon", z.string()],
      ['<RESULT>\n{"a": 1}\n</res', z.object({ a: z.number() })],
      ["Here it is: <result>\n", z.string()],
    ] as const) {
      const read = readOutput(text, output, "length");
      expect(read, text).toEqual({ ok: false, detail: expect.stringMatching(/cut off at its token limit before <\/result>.*raise maxTokens/) });
    }
  });

  it("an unclosed block in a reply that ended normally is read to its end, as before", () => {
    for (const reason of ["stop", "other"] as const) {
      expect(readOutput("<result>\n12", z.number(), reason)).toEqual({ ok: true, value: 12 });
    }
    expect(readOutput("<result>\n12", z.number())).toEqual({ ok: true, value: 12 }); // (no reason given: ended normally)
  });

  // hunt 13: Claude's streaming classifiers stop a reply mid-text (stop_reason "refusal": content_filter); an unclosed
  // block it stopped holds the answer's start only, and so does a plain reply it stopped (hunt 43). A model's own
  // refusal (OpenAI's `refusal` field: finishReason "refusal") declines: not read as the answer either (hunt 61).
  it("a reply a refusal or filter stopped is unreadable unless its block closed; so is a model's own refusal", () => {
    expect(readOutput("<result>\n12", z.number(), "content_filter")).toEqual({
      ok: false,
      detail: expect.stringMatching(/refusal or a content filter before <\/result>/),
    });
    expect(readOutput("<result>\n12\n</result>", z.number(), "content_filter")).toEqual({ ok: true, value: 12 });
    expect(readOutput("First, run the scanner against the host and", z.string(), "content_filter")).toEqual({
      ok: false,
      detail: expect.stringMatching(/refusal or a content filter before its end/),
    });
    // (a model's own refusal is no answer either: hunt 61)
    expect(readOutput("I can't help with that.", z.string(), "refusal")).toEqual({ ok: false, detail: expect.stringMatching(/refused to answer/) });
  });

  it("a reply cut at its length limit with no block at all is unreadable too: a plain answer cut short", () => {
    for (const [text, output] of [
      ["It shipped on Mon", z.string()],
      ["1234", z.number()],
    ] as const)
      expect(readOutput(text, output, "length"), text).toEqual({
        ok: false,
        detail: expect.stringMatching(/cut off at its token limit before its answer ended.*raise maxTokens/),
      });
    expect(readOutput("It shipped on Monday.", z.string(), "stop")).toEqual({ ok: true, value: "It shipped on Monday." });
  });

  it("a closed block is the answer even when the reply was cut after it", () => {
    expect(readOutput("<result>\n12345\n</result>\nIt is the cou", z.number(), "length")).toEqual({ ok: true, value: 12345 });
  });
});
