/**
 * A model string resolveLM cannot place is refused with advice that works:
 * never a suggestion that repeats the provider ("openai:openai:") or keeps
 * a misspelt one ("openai:OpenAI:gpt-4o").
 */
import { describe, expect, it } from "vitest";
import { FunctaiError } from "../../src/errors.js";
import { resolveLM } from "../../src/providers/resolve.js";

const refusal = (name: string): FunctaiError => {
  try {
    resolveLM(name);
  } catch (e) {
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("lm-unknown");
    return e as FunctaiError;
  }
  throw new Error(`resolveLM(${JSON.stringify(name)}) did not refuse`);
};

describe("resolveLM's refusals", () => {
  it("a provider prefix with no model says the model name is missing", () => {
    for (const name of ["openai:", "anthropic:", "openai:   "]) {
      const e = refusal(name);
      expect(e.message).toContain("no model");
      expect(e.message).not.toMatch(/"(openai|anthropic):(openai|anthropic):/);
    }
  });

  it("a provider prefix spelt otherwise (case, spaces) suggests the spelling that works", () => {
    expect(refusal("OpenAI:gpt-4o").message).toContain('"openai:gpt-4o"');
    expect(refusal("OpenAI:gpt-4o").message).not.toContain("openai:OpenAI");
    expect(refusal("Anthropic : claude-haiku-4-5").message).toContain('"anthropic:claude-haiku-4-5"');
  });

  it("an unknown prefix is still offered both providers (a fine-tuned model's name holds colons)", () => {
    const e = refusal("ft:gpt-4o-mini:acme::abc123");
    expect(e.message).toContain('"openai:ft:gpt-4o-mini:acme::abc123"');
    expect(resolveLM("openai:ft:gpt-4o-mini:acme::abc123")).toMatchObject({ provider: "openai", model: "ft:gpt-4o-mini:acme::abc123" });
  });
});
