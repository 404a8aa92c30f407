/**
 * hunt 61: a wrong script (a reply calling a tool the function does not
 * offer, a call whose input the tool refuses, an answer that cannot be read)
 * ends as `lm-script-ended`, since the engine tells the model and asks again.
 * The error said only "find why the model was asked again": the why (the
 * tool's refusal, the unreadable reply), which the engine had just sent the
 * model, was nowhere in it. It now quotes the end of the request it could
 * not answer, so a test writer sees the mistake in the script.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const find = tool("find_order", { description: "Finds an order.", input: { id: z.string() }, effects: "reads" }, ({ id }) => `${id}: shipped`);
const desk = ai("desk", { description: "Answers.", input: { q: z.string() }, output: z.string(), tools: [find] });
const count = ai("count", { description: "Counts.", input: { q: z.string() }, output: z.number() });

async function failure(p: Promise<unknown>): Promise<FunctaiError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(FunctaiError);
  expect((e as FunctaiError).code).toBe("lm-script-ended");
  return e as FunctaiError;
}

describe("scripted: the script ended after the engine told the model something went wrong", () => {
  for (const nativeTools of [true, false]) {
    it(`a call to a tool not offered: the error says there is no such tool (nativeTools: ${nativeTools})`, async () => {
      const lm = scripted([{ toolCalls: [{ name: "refund", input: { id: "A-1" } }] }], { nativeTools });
      const e = await failure(desk("Refund A-1.", { lm }));
      expect(e.message).toMatch(/script ended.*reply 2.*has 1/);
      expect(e.message).toContain('no tool named "refund"');
    });

    it(`a call whose input the tool refuses: the error says why (nativeTools: ${nativeTools})`, async () => {
      const lm = scripted([{ toolCalls: [{ name: "find_order", input: { id: 1042 } }] }], { nativeTools });
      const e = await failure(desk("Where is 1042?", { lm }));
      expect(e.message).toContain("invalid input for find_order");
    });
  }

  it("an answer that cannot be read: the error says the reply could not be read, and why", async () => {
    const e = await failure(count("How many?", { lm: scripted(["about four"]) }));
    expect(e.message).toContain("could not be read");
  });

  it("a long last message is cut to a readable length", async () => {
    const e = await failure(desk("x".repeat(50_000), { lm: scripted([]) }));
    expect(e.message.length).toBeLessThan(1_000);
  });
});
