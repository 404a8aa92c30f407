/**
 * A tool whose body runs a turn of its own (another conversation's `send`,
 * or a `stream`) with its own time limit: when that inner turn is aborted by
 * its own signal, it rejects with turn-aborted, and the tool throws that.
 * README "A first tool": "A tool that throws … is reported to the model,
 * which may try again". Here the calling turn was never aborted (its signal
 * is untouched), yet it stops as if it were: the call rejects with
 * turn-aborted ("the turn was aborted") and the model is never told.
 *
 * The engine takes any thrown FunctaiError whose code is turn-aborted as the
 * calling turn's own stop (src/engine/tool-calls.ts, PROPAGATE and
 * mustPropagate), whichever turn it came from. The fix belongs there
 * (propagate turn-aborted only when this turn's own signal aborted, or only
 * the engine's own stop errors), and it was
 * fixed there (this test was it.fails until then).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, LM_SPEC, resetConfiguration, tool, type LanguageModel, type LMResponse } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

beforeEach(() => resetConfiguration());

/** A model that takes half a second, and stops when its call's signal aborts. */
const slow = {
  specificationVersion: LM_SPEC,
  provider: "slow",
  model: "slow-1",
  nativeTools: true,
  generate: (_request: unknown, options?: { signal?: AbortSignal }) =>
    new Promise<LMResponse>((resolve, reject) => {
      const timer = setTimeout(() => resolve({ text: "late", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } }), 500);
      options?.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(options.signal?.reason);
      });
    }),
} as unknown as LanguageModel;

describe("a tool whose own inner turn is aborted by its own time limit", () => {
  const summarize = ai("summarize", { description: "Summarize.", input: { q: z.string() } });

  for (const [how, body] of [
    [
      "another conversation's send",
      (q: string) => summarize.conversation("notes", { store: memoryStore(), lm: slow }).send(q, { signal: AbortSignal.timeout(30) }),
    ],
    ["a stream", (q: string) => summarize.stream(q, { lm: slow, signal: AbortSignal.timeout(30) })],
  ] as const) {
    it(`${how}: the model is told the tool failed and answers; the calling turn is not aborted (it was turn-aborted)`, async () => {
      const research = tool("research", { description: "Research.", input: { q: z.string() }, effects: "reads" }, async ({ q }) => body(q));
      const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [research] });
      const lm = scripted([{ toolCalls: [{ name: "research", input: { q: "kettles" } }] }, "done"]);
      expect(await desk("Find out about kettles.", { lm })).toBe("done");
      expect(lm.requests).toHaveLength(2);
      expect(toolResults(lm.requests[1])[0]?.[0]).toBe("research");
      expect(toolResults(lm.requests[1])[0]?.[1]).toMatch(/^Error: /);
    });
  }
});
