/**
 * Hunt 89: a model call that fails (the provider's error with a stable code, `provider-rate-limit` here) whose
 * plugin's `modelResponse` hook also throws (a tracer whose exporter is down). The call rejects `plugin-failed`, as
 * the README says of any hook that throws, its cause the hook's error, as every `plugin-failed` has; but the
 * message said only "plugin tracer failed in modelResponse: exporter down", and nothing said the model call had
 * failed at all, nor why: a rate limit read as a broken plugin. The message now names the model call's failure, its
 * code and its words.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ProviderError, ai, type LanguageModel, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { failure } from "./fixtures/coded-failure.js";

const rateLimited = (): LanguageModel => {
  const lm = scripted(["never"]);
  return {
    ...lm,
    generate: () =>
      Promise.reject(
        new ProviderError("provider-rate-limit", "openai: 429 Rate limit reached for gpt-4.1-mini", { provider: "openai", status: 429 }),
      ),
  } as LanguageModel;
};

const tracer: Plugin = {
  name: "tracer",
  version: "1",
  hooks: {
    modelResponse: () => {
      throw new Error("exporter down");
    },
  },
};

const ask = ai("ask", { description: "Answer.", input: { q: z.string() } });
describe("a modelResponse hook that throws on a model call that failed", () => {
  it("rejects plugin-failed naming the plugin and the hook's error (its cause), and the model call's failure and its code", async () => {
    const err = await failure(ask("hi", { lm: rateLimited(), plugins: [tracer] }));
    expect(err.code).toBe("plugin-failed");
    expect(err.message).toContain("tracer");
    expect(err.message).toContain("exporter down");
    expect((err.cause as Error).message).toBe("exporter down");
    expect(err.message).toContain("provider-rate-limit");
    expect(err.message).toContain("429 Rate limit reached");
  });

  it("without the hook, the provider's error itself (unchanged)", async () => {
    const err = await failure(ask("hi", { lm: rateLimited() }));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.code).toBe("provider-rate-limit");
  });
});
