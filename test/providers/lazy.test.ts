import { describe, expect, it, vi } from "vitest";

// Records whether each SDK was loaded; the stand-in classes are never used for a request.
const loaded = vi.hoisted(() => ({ openai: 0, anthropic: 0 }));
vi.mock("openai", () => {
  loaded.openai++;
  return { default: class { constructor() { throw new Error("stand-in SDK"); } } };
});
vi.mock("@anthropic-ai/sdk", () => {
  loaded.anthropic++;
  return { default: class { constructor() { throw new Error("stand-in SDK"); } } };
});

describe("SDK loading", () => {
  it("loads neither SDK until a model is asked for a reply", async () => {
    const { openai, anthropic, resolveLM } = await import("../../src/providers/index.js");
    const models = [openai({ model: "gpt-4.1-mini", apiKey: "k" }), anthropic({ model: "claude-haiku-4-5", apiKey: "k" }), resolveLM("gpt-4o")];
    expect(models.map((m) => m.provider)).toEqual(["openai", "anthropic", "openai"]);
    expect(loaded).toEqual({ openai: 0, anthropic: 0 });

    await expect(models[0]!.generate({ messages: [{ role: "user", content: "hi" }], tools: [] })).rejects.toThrow("stand-in SDK");
    expect(loaded).toEqual({ openai: 1, anthropic: 0 });
  });
});
