/** A worked example's inputs are shown as the live input is: parsed by the function's input schema. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("worked examples show their inputs as the call does", () => {
  it("transforms are applied in the example, as in the live input, and a default it leaves out is not filled (hunt 125: one made anew would differ at each load); the saved state keeps them as given", async () => {
    const count = ai("count", {
      description: "Count the letters.",
      input: { word: z.string().trim(), unit: z.string().default("letters"), note: z.string().optional() },
      output: z.number(),
    });
    const lm = scripted(["<result>\n3\n</result>"]);
    const shown = labeledFewShot(count, [{ word: "  hello  ", result: 5 }]);
    await shown.using({ lm })({ word: " abc " });
    const users = lm.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual(["<word>\nhello\n</word>", "<word>\nabc\n</word>\n\n<unit>\nletters\n</unit>"]);
    // what is saved is the row as written: loading it again parses it again
    expect(shown.state().demos[0]!.inputs).toEqual({ word: "  hello  " });
  });
});
