/**
 * Hunt 103: a model that does not name itself. A LanguageModel is checked only by its `specificationVersion`
 * (isLanguageModel): one made in JavaScript, or with `model: process.env.MODEL` unset, runs as any other, and
 * its `model` or `provider` may be undefined or not text. otel() named its chat span `chat undefined` (the GenAI
 * conventions: `chat {gen_ai.request.model}`, or the operation alone when the model is not known), and set
 * attributes OpenTelemetry does not take (an object, undefined): the SDK dropped them, warning through diag at
 * every model call. Now such values are left out, and the span is named `chat`.
 */
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, type LanguageModel } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { one, tracing } from "./tracing.js";

afterEach(() => diag.disable());

describe("otel() and a model that does not name itself", () => {
  it("its chat span is named chat, with no attribute OpenTelemetry refuses", async () => {
    const warnings: string[] = [];
    const told = (m: string) => void warnings.push(m);
    diag.setLogger({ error: told, warn: told, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.WARN);
    const t = tracing();
    const script = scripted(["It is on its way."]);
    // (as a model made in JavaScript gives them: no model name, a provider that is not text)
    const lm = { ...script, model: undefined, provider: { name: "mine" }, generate: script.generate } as unknown as LanguageModel;
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() } });
    expect(await desk("Where is A-1042?", { lm, plugins: [otel({ tracer: t.tracer })] })).toBe("It is on its way.");
    const chat = one(t.spans(), "chat");
    expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": 5 });
    expect(chat.attributes).not.toHaveProperty("gen_ai.request.model");
    expect(chat.attributes).not.toHaveProperty("gen_ai.provider.name");
    expect(warnings).toEqual([]);
  });
});
