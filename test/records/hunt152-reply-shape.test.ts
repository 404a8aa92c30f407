/**
 * Hunt 152: the shape a `reply` record's `response` must have to be replayed (records/reply.ts), against the check
 * a live reply passes before the engine reads and keeps it (lm/check-response.ts). A reply kept by the engine went
 * through that check and then through JSON: the replay check must take every such reply (or a resumed turn would be
 * refused over a record of its own), and take nothing that check refuses (or a damaged record would be misread).
 * Replies are made with keys removed or replaced, at the top, in a tool call and in the usage, as a file store reads them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkResponse } from "../../src/lm/check-response.js";
import { FINISH_REASONS, LM_SPEC, type LanguageModel } from "../../src/lm/types.js";
import { replyProblem } from "../../src/records/reply.js";

const lm: LanguageModel = { specificationVersion: LM_SPEC, provider: "p", model: "m", nativeTools: true, generate: () => Promise.reject(new Error("unused")) };
const liveTakes = (r: unknown): boolean => {
  try {
    checkResponse(lm, r);
    return true;
  } catch {
    return false;
  }
};

const call = { id: "c1", name: "refund", input: { id: "A" }, inputError: "bad", reasoning: "r", extraContent: { x: 1 } };
const reply = { text: "", toolCalls: [call, { id: "c2", name: "look", input: 1 }], finishReason: "tool_calls", usage: { inputTokens: 10, outputTokens: 2 }, model: "m" };

const anyValue = fc.oneof(
  fc.constantFrom<unknown>(null, "", "x", 0, -1, 1.5, 1e308, true, [], [null], [call], [{}], {}, { id: "c" }, { id: "c", name: 1 }, ...FINISH_REASONS, "max_tokens", "STOP"),
  fc.string(),
  fc.double(),
  fc.jsonValue(),
);
/** `base` with up to three keys removed or replaced. */
const edited = (base: Record<string, unknown>) =>
  fc.array(fc.tuple(fc.constantFrom(...Object.keys(base), "extra"), fc.option(anyValue, { nil: "__delete__" as const })), { maxLength: 3 }).map((edits) => {
    const r: Record<string, unknown> = { ...base };
    for (const [key, value] of edits) {
      if (value === "__delete__") delete r[key];
      else r[key] = value;
    }
    return r;
  });
const replies = fc.oneof(
  edited(reply),
  edited(call).map((c) => ({ ...reply, toolCalls: [reply.toolCalls[1], c] })),
  edited(reply.usage).map((usage) => ({ ...reply, usage })),
);
/** As a store keeps it and reads it back (JSON: NaN is null, undefined is gone). */
const kept = (r: unknown): unknown => JSON.parse(JSON.stringify(r)) as unknown;

describe("hunt 152: a reply record's response is replayed exactly when it is a reply the engine takes live", () => {
  it("the whole reply, as kept", () => {
    expect(replyProblem(kept(reply))).toBeUndefined();
    expect(liveTakes(kept(reply))).toBe(true);
  });

  it("keys removed or replaced anywhere: taken by both, or refused by both (with a reason)", () => {
    fc.assert(
      fc.property(replies, (r) => {
        const stored = kept(r);
        const problem = replyProblem(stored);
        expect(problem === undefined).toBe(liveTakes(stored));
        if (problem !== undefined) expect(problem).toMatch(/\S/);
      }),
      { numRuns: 5000 },
    );
  });
});
