/**
 * hunt 153: DeepSeek V3.2's DSML parameters read back as the values the
 * model wrote (lm/marked-calls.ts).
 *
 * DeepSeek's template writes a string parameter as it is, `string="true"`,
 * and any other value as JSON, `string="false"`. A property writes inputs of
 * every kind so (texts with spaces, new lines, `<`, quotes and JSON-looking
 * words; numbers; booleans; null; lists and objects), as one call or
 * several, and reads each back whole: a text is never trimmed or parsed, a
 * JSON value never left as text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markedCalls } from "../../src/lm/marked-calls.js";

/** One parameter as DeepSeek's template writes it: a text as it is, anything else as JSON. */
const parameter = (key: string, value: unknown) =>
  typeof value === "string"
    ? `<｜DSML｜parameter name="${key}" string="true">${value}</｜DSML｜parameter>`
    : `<｜DSML｜parameter name="${key}" string="false">${JSON.stringify(value)}</｜DSML｜parameter>`;

const invoke = (name: string, input: Record<string, unknown>) =>
  `<｜DSML｜invoke name="${name}">\n${Object.entries(input)
    .map(([k, v]) => parameter(k, v))
    .join("\n")}\n</｜DSML｜invoke>`;

// (a text holding the closing tag itself is no parameter DeepSeek writes)
const text = fc.string({ unit: fc.constantFrom("a", " ", "\n", "<", ">", '"', "{", "}", "1", "true", "é", "｜") });
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.integer(), { maxKeys: 3 }),
);
const input = fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), value, { maxKeys: 4 });

describe("DSML parameters are the values written", () => {
  it("property: each call's input, of any kinds of value, reads back whole; the words before the section are the reply's", () => {
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 3 }), fc.constantFrom("function_calls", "tool_calls"), (inputs, section) => {
        const reply = `Let me look.\n\n<｜DSML｜${section}>\n${inputs.map((i) => invoke("lookup_order", i)).join("\n")}\n</｜DSML｜${section}>`;
        const read = markedCalls(reply);
        expect(read?.form).toBe("dsml");
        expect(read?.calls).toEqual(inputs.map((i) => ({ name: "lookup_order", input: i })));
        expect(read?.words).toBe("Let me look.");
      }),
      { numRuns: 200 },
    );
  });
});
