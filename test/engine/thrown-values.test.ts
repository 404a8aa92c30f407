/**
 * Whatever a tool throws, the model is told something and the call goes on:
 * an object without a prototype holding a cycle (neither JSON nor String can
 * write it), an Error whose message is not text, a symbol. Before, the first
 * made describing the failure throw a TypeError of its own.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, describeError, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const cyclicBare = (): unknown => {
  const o = Object.create(null) as Record<string, unknown>;
  o["self"] = o;
  return o;
};

describe("a thrown value of any kind", () => {
  it("is described without throwing", () => {
    const odd = Object.assign(new Error("x"), { message: { code: 7 } });
    expect(describeError(cyclicBare())).toBe("[object Object]");
    expect(describeError(odd)).toBe("Error");
    expect(describeError(Symbol("boom"))).toBe("Symbol(boom)");
    expect(describeError(1n)).toBe("1");
    expect(describeError({ reason: "late" })).toBe('{"reason":"late"}');
  });

  it("thrown by a tool, is a tool error the model is told of; the call answers", async () => {
    for (const thrown of [cyclicBare(), Symbol("boom")]) {
      const broken = tool("broken", { description: "Breaks.", input: {}, effects: "reads" }, () => {
        throw thrown;
      });
      const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [broken] });
      const lm = scripted([{ toolCalls: [{ name: "broken", input: {} }] }, (r) => `saw: ${r.messages.at(-1)!.content}`]);
      expect(await fn("x", { lm })).toMatch(/^saw: Error: (\[object Object\]|Symbol\(boom\))$/);
    }
  });
});
