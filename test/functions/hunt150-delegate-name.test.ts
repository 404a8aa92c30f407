/**
 * Hunt 150: a delegate given a name of its own (`delegate(billing, { name:
 * "accounts" })`) is offered to the model under that name, but it read the
 * model's call with the program's own input schema, whose refusal of a key
 * that is no input named the program: the model, having called `accounts`
 * with a misspelt key, was told "not an input of billing", a tool it was
 * never offered. Now the refusal names the tool as the model called it;
 * the program still does not run, and what the model is shown of its input
 * is unchanged.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, program, toolSpec } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a renamed delegate's input refusal", () => {
  it("names the delegate the model called, not the program behind it", async () => {
    const ran: unknown[] = [];
    const billing = program("billing", { description: "Billing answers.", input: { question: z.string() }, effects: "reads" }, (input) => {
      ran.push(input);
      return "Paid on the 3rd.";
    });
    const accounts = delegate(billing, { name: "accounts" });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [accounts] });
    const lm = scripted([{ toolCalls: [{ name: "accounts", input: { question: "When?", urgnt: true } }] }, "Asked again."]);
    expect(await desk("When was I billed?", { lm })).toBe("Asked again.");
    const told = lm.requests[1]!.messages.at(-1)!;
    expect(told).toMatchObject({ role: "tool", name: "accounts", isError: true });
    expect(told.content).toContain("urgnt: not an input of accounts (its inputs: question)");
    expect(told.content).not.toContain("billing");
    expect(ran).toEqual([]);
    // (the schema shown to the model is the program's, as before: no additionalProperties added)
    expect(toolSpec(accounts).parameters).toEqual(toolSpec(billing).parameters);
  });

  it("a well-formed call runs the program (a guard)", async () => {
    const billing = program(
      "billing",
      { description: "Billing answers.", input: { question: z.string() }, effects: "reads" },
      ({ question }) => `about ${question}`,
    );
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing, { name: "accounts" })] });
    const lm = scripted([{ toolCalls: [{ name: "accounts", input: { question: "fees" } }] }, "Done."]);
    expect(await desk("Fees?", { lm })).toBe("Done.");
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "accounts", content: "about fees" });
  });
});
