/**
 * A reply that cannot be read as the output, on the last step the limit
 * allows: what went wrong is the reply (`output-invalid`, saying no step was
 * left to ask again), not the limit. Before, it was `step-limit` ("no answer
 * after 1 model calls"), which sent people to raise a limit that was not
 * the problem.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, OutputError } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const count = ai("count", { description: "How many items.", input: { list: z.string() }, output: z.number() });

describe("an unreadable reply on the last step", () => {
  it("maxSteps: 1 → output-invalid with the reply, not step-limit", async () => {
    const e = await count("a, b", { lm: scripted(["two, I think"]), maxSteps: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutputError);
    expect(e).toMatchObject({ code: "output-invalid", message: expect.stringMatching(/maxSteps \(1\) left no step to ask again/) });
  });

  it("with a step left it is asked again once, as before, and a readable second reply is the answer", async () => {
    const lm = scripted(["two, I think", "<result>\n2\n</result>"]);
    expect(await count("a, b", { lm, maxSteps: 2 })).toBe(2);
    expect(lm.requests).toHaveLength(2);
  });

  it("a limit spent on tool steps is still step-limit", async () => {
    const { tool } = await import("../../src/index.js");
    const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, () => "seen");
    const busy = ai("busy", { description: "Look, then count.", input: { list: z.string() }, output: z.number(), tools: [look] });
    const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, { toolCalls: [{ name: "look", input: {} }] }]);
    await expect(busy("a", { lm, maxSteps: 2 })).rejects.toMatchObject({ code: "step-limit" });
  });
});
