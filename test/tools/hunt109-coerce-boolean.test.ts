/**
 * Hunt 109: `z.coerce.boolean()` reads any text but "" as true
 * (`Boolean("false")`). A tool's input or an AI function's answer of it is
 * shown to the model as a boolean, and a model that wrote the text "false"
 * (or "no", or a bare `False` as its answer) had it read as true: a tool
 * asked not to notify, or not to charge, ran with `true`, and the caller got
 * `true` typed as the answer. Such a schema is refused where the model
 * writes it, when the function or tool is defined (`settings-invalid`,
 * naming where, and saying to use `z.boolean()`, or `z.stringbool()` to read
 * "yes"/"false" text). Called from code (an AI function's own input, not
 * offered to a model) it is taken as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/functions/ai.js";
import { tool } from "../../src/tools/tool.js";
import { scripted } from "../../src/testing/index.js";
import { refusal } from "../fixtures/refused.js";

describe("z.coerce.boolean() where the model writes it", () => {
  it("in a tool's input: refused when the tool is defined, naming the input and what to use, which is taken", async () => {
    const e = refusal(() =>
      tool("charge", { description: "Charge.", input: { order_id: z.string(), confirm: z.coerce.boolean() }, effects: "changes" }, () => "charged"),
    );
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/tool charge: its input confirm is z\.coerce\.boolean\(\)/);
    expect(e.message).toMatch(/"false"/);
    expect(e.message).toMatch(/z\.stringbool\(\)/);
    // what it says to use reads the text false as false
    const seen: unknown[] = [];
    const notify = tool(
      "notify",
      { description: "Notify.", input: { loud: z.boolean(), urgent: z.stringbool() }, effects: "reads" },
      (input) => (seen.push(input), "sent"),
    );
    const desk = ai("desk", { description: "Help.", input: { ask: z.string() }, tools: [notify] });
    const lm = scripted([{ toolCalls: [{ name: "notify", input: { loud: false, urgent: "false" } }] }, "done"]);
    expect(await desk("go", { lm })).toBe("done");
    expect(seen).toEqual([{ loud: false, urgent: false }]);
  });

  it("nested, or in an AI function's answer: refused too; an AI function's own input, given from code, is taken", async () => {
    const nested = refusal(() =>
      tool(
        "notify",
        { description: "Notify.", input: { options: z.object({ loud: z.coerce.boolean().optional() }) }, effects: "changes" },
        () => "ok",
      ),
    );
    expect(nested.message).toMatch(/options\.loud is z\.coerce\.boolean\(\)/);
    const answer = refusal(() => ai("check", { description: "Is it late?", input: { q: z.string() }, output: z.coerce.boolean() }));
    expect(answer.code).toBe("settings-invalid");
    expect(answer.message).toMatch(/check: its output is z\.coerce\.boolean\(\)/);
    const strict = ai("strict", { description: "Check.", input: { strict: z.coerce.boolean() } });
    expect(await strict(1 as never, { lm: scripted(["ok"]) })).toBe("ok");
  });
});
