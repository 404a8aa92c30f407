/**
 * hunt 77: a tool whose input holds `z.coerce.bigint()` was accepted when it
 * was defined (a plain `z.bigint()` is refused there). The model was shown
 * `{}` for the input (JSON Schema has no word for a BigInt), and whatever it
 * wrote, the call then failed (`tool-failed`: a BigInt input cannot be
 * journaled): every model reply that called the tool was paid for and
 * wasted, the tool never able to run. Such a tool is refused when it is
 * defined (`settings-invalid`, naming the input and what to use instead), as
 * `z.bigint()` is. An answer (`output: z.coerce.bigint()`) still reads the
 * digits the model writes.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const refusal = (make: () => unknown): FunctaiError => {
  try {
    make();
  } catch (e) {
    return e as FunctaiError;
  }
  throw new Error("it was not refused");
};

describe("a BigInt in a tool's input", () => {
  it("z.coerce.bigint() in a tool's input is refused when the tool is defined, naming it", () => {
    const e = refusal(() => tool("pay", { description: "Pay.", input: { cents: z.coerce.bigint() }, effects: "changes" }, () => "paid"));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toContain("cents");
    expect(e.message).toContain("z.coerce.bigint()");
    expect(e.message).toMatch(/z\.string\(\)/);
  });

  it("nested or optional, and in an AI function used as a tool, it is refused too", () => {
    const nested = refusal(() =>
      tool("pay", { description: "Pay.", input: { order: z.object({ cents: z.coerce.bigint().optional() }) }, effects: "changes" }, () => "paid"),
    );
    expect(nested.code).toBe("settings-invalid");
    expect(nested.message).toContain("order.cents");
    const inner = ai("split", { description: "Split the bill.", input: { cents: z.coerce.bigint() }, output: z.string() });
    const outer = refusal(() => ai("desk", { description: "Help.", input: { question: z.string() }, tools: [inner] }));
    expect(outer.code).toBe("settings-invalid");
    expect(outer.message).toContain("cents");
  });

  it("a BigInt made by a transform (which a definition cannot see) still fails the call before the tool runs", async () => {
    let ran = 0;
    const pay = tool("pay", { description: "Pay.", input: { cents: z.string().transform((s) => BigInt(s)) }, effects: "changes" }, () => ++ran);
    const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { cents: "5" } }] }, "paid"]);
    await expect(desk("pay", { lm, approve: () => true })).rejects.toMatchObject({ code: "tool-failed" });
    expect(ran).toBe(0);
  });

  it("an answer read as z.coerce.bigint() is still read from the digits the model writes", async () => {
    const count = ai("count", { description: "Count them.", input: { text: z.string() }, output: z.coerce.bigint() });
    await expect(count("a b c", { lm: scripted(["<result>\n3\n</result>"]) })).resolves.toBe(3n);
  });
});
