import { describe, expect, it } from "vitest";
import { FunctaiError } from "../../src/errors.js";
import { LM_SPEC, type LanguageModel } from "../../src/lm/types.js";
import { resolveLM } from "../../src/providers/resolve.js";

describe("resolveLM", () => {
  it("places bare model names by their maker's prefix", () => {
    for (const name of ["gpt-4.1-mini", "o1-mini", "o3", "o4-mini", "chatgpt-4o-latest"]) {
      expect(resolveLM(name)).toMatchObject({ provider: "openai", model: name, specificationVersion: LM_SPEC });
    }
    expect(resolveLM("claude-haiku-4-5")).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5" });
  });

  it("takes an explicit provider prefix for any model name", () => {
    expect(resolveLM("openai:llama3.1")).toMatchObject({ provider: "openai", model: "llama3.1" });
    expect(resolveLM("anthropic:my-claude")).toMatchObject({ provider: "anthropic", model: "my-claude" });
  });

  it("returns one LM per string, and an LM object as it is", () => {
    expect(resolveLM("gpt-4.1-mini")).toBe(resolveLM("gpt-4.1-mini"));
    expect(resolveLM("gpt-4.1-mini")).not.toBe(resolveLM("openai:gpt-4.1-mini-2025-04-14"));
    const own: LanguageModel = {
      specificationVersion: LM_SPEC, provider: "mine", model: "m", nativeTools: true,
      generate: async () => ({ text: "", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } }),
    };
    expect(resolveLM(own)).toBe(own);
  });

  it("refuses a name it cannot place, saying to use a prefix", () => {
    for (const name of ["llama3.1", "mistral:7b", "openai:", "gemini-2.5-pro"]) {
      let error: unknown;
      try {
        resolveLM(name);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FunctaiError);
      expect((error as FunctaiError).code).toBe("lm-unknown");
      expect((error as FunctaiError).message).toContain(`"openai:`);
    }
  });
});
