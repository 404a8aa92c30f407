/**
 * The system message showed the output type's JSON Schema as zod gives its output side, but the model's reply is
 * what the type parses (its input side). For a field with a transform the output side is `{}` (anything), and a
 * field with a default is required there: a model told `n` may be anything that answered with a number was
 * refused (the parse wants a string), and one that left out a defaulted field was told it broke the schema.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { systemMessage } from "../../src/lm/prompt.js";
import { scripted } from "../../src/testing/index.js";

const schemaIn = (system: string): Record<string, unknown> =>
  JSON.parse(/The result is JSON matching this schema: (.*)$/.exec(system)![1]!) as Record<string, unknown>;

describe("the output schema the model is shown", () => {
  it("is what the reply is parsed with: a transformed field's type, a defaulted field not required", async () => {
    const output = z.object({ n: z.string().transform(Number), unit: z.string().default("kg") });
    const lm = scripted(['<result>\n{"n":"5"}\n</result>']);
    const f = ai("weigh", { description: "Weigh it.", input: { thing: z.string() }, output });
    expect(await f.using({ lm })("a brick")).toEqual({ n: 5, unit: "kg" });
    const schema = schemaIn(lm.requests[0]!.messages[0]!.content) as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties.n).toEqual({ type: "string" });
    expect(schema.required).toEqual(["n"]);
  });

  it("an output type with no transform nor default is shown as before, byte for byte", () => {
    expect(systemMessage("f", "d", z.object({ a: z.string(), b: z.number().optional() }))).toBe(
      'Function: f\n\nd\n\nReply in exactly this form:\n<result>\n...\n</result>\n\nThe result is JSON matching this schema: {"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"],"additionalProperties":false}',
    );
  });
});
