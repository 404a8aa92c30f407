/**
 * Reading a non-string answer from a model's reply. A reply whose JSON does
 * not parse (a trailing comma, a comment: real models write both) is asked
 * again once, and the model is told what was wrong: that its JSON did not
 * parse, not that it "sent a string".
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { scripted } from "../../src/testing/index.js";

const Order = z.object({ id: z.string(), items: z.array(z.string()) });

describe("readOutput with JSON that does not parse", () => {
  it("says the JSON is not valid, and where (it said: expected object, received string)", () => {
    for (const body of ['{"id": "A-1", "items": ["kettle",],}', '{"id": "A-1", // the order\n "items": []}', '```json\n[1, 2,]\n```']) {
      const read = readOutput(`<result>\n${body}\n</result>`, Order);
      expect(read.ok).toBe(false);
      if (!read.ok) {
        expect(read.detail, body).toMatch(/^not valid JSON: /);
        expect(read.detail).not.toMatch(/received string/);
      }
    }
  });

  it("a reply that is not JSON at all is still checked as text (an enum's bare word), with zod's own words", () => {
    const Mood = z.enum(["yes", "no"]);
    expect(readOutput("<result>\nyes\n</result>", Mood)).toEqual({ ok: true, value: "yes" });
    const read = readOutput("<result>\nMaybe\n</result>", Mood);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.detail).toMatch(/expected one of/);
    expect(readOutput('<result>\n{"id": "A-1", "items": []}\n</result>', Order)).toEqual({ ok: true, value: { id: "A-1", items: [] } });
  });

  it("the model is asked again with that reason, and its second answer is taken", async () => {
    const lm = scripted(['<result>\n{"id": "A-1", "items": ["kettle",]}\n</result>', '<result>\n{"id": "A-1", "items": ["kettle"]}\n</result>']);
    const order = ai("order", { description: "The order.", input: { q: z.string() }, output: Order });
    expect(await order("A-1", { lm })).toEqual({ id: "A-1", items: ["kettle"] });
    const asked = lm.requests[1]!.messages.at(-1)!.content as string;
    expect(asked).toMatch(/could not be read \(not valid JSON: /);
  });
});
