/**
 * Hunt 103: what a model's reply names is recorded on every span, contents or not: the model that answered
 * (`gen_ai.response.model`) and each tool call's id (`gen_ai.tool.call.id`). Neither is checked for length (a
 * gateway may send what it likes, a custom model give any text), and neither was bounded as contents are (hunt 78):
 * a 10 MB id was a 10 MB attribute on the tool's span, and an export its collector refuses (OTLP/gRPC's default:
 * 4 MB) lost every span of its batch. Now each is bounded as contents are, saying it was cut.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_ATTRIBUTE_CHARS } from "../../adapters/otel/attributes.js";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type LanguageModel } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { one, tracing } from "./tracing.js";

const TEN_MB = 10_000_000;

describe("otel() and a reply naming things at megabytes", () => {
  it("a 10 MB tool call id and a 10 MB response model: each attribute bounded, saying it was cut", async () => {
    const t = tracing();
    const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, () => "seen");
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [look] });
    const script = scripted([{ toolCalls: [{ id: "i".repeat(TEN_MB), name: "look", input: {} }] }, "Seen."]);
    // (as a gateway answers: the model it says answered, at any length)
    const lm: LanguageModel = {
      ...script,
      generate: async (request, options) => ({ ...(await script.generate(request, options)), model: "m".repeat(TEN_MB) }),
    };
    expect(await desk("Look.", { lm, plugins: [otel({ tracer: t.tracer })] })).toBe("Seen.");
    const spans = t.spans();
    const id = one(spans, "execute_tool look").attributes["gen_ai.tool.call.id"] as string;
    const model = spans.find((s) => s.name.startsWith("chat"))!.attributes["gen_ai.response.model"] as string;
    for (const text of [id, model]) {
      expect(text.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS);
      expect(text).toMatch(/10,000,000 characters/);
    }
  });
});
