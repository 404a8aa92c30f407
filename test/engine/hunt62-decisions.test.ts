/**
 * Two behaviours that need a public-contract decision (left as it.fails):
 *
 * 1. A stopped turn waits for its tools to end (README: the send "rejects with
 *    turn-aborted once the turn's tools have ended and its end is kept"). A
 *    tool that ignores `ctx.signal` and never settles (a hung socket, a
 *    forgotten promise) makes the stop hang for good: the call never rejects.
 *    Decision needed: give up after a bound (as server.close() does after 5 s),
 *    leaving a changing tool `started` (unfinished, for a person) and a reading
 *    one unrecorded, or keep waiting for ever.
 *
 * 2. A request's `messages` is an O(1) Proxy view of the history (message-view.ts):
 *    a LanguageModel that hands its request to a Worker (`postMessage`, as an
 *    in-browser model such as WebLLM does) or keeps it with `structuredClone`
 *    fails with a DataCloneError (told as provider-response), though
 *    LMRequest.messages is typed `Message[]`. Decision needed: send each paid
 *    request a real array (an O(history) copy per paid step; bench/alloc-per-step.ts
 *    measures allocation flat across turn length) or document that a model
 *    copies `[...request.messages]` before cloning.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, LM_SPEC, tool, type LanguageModel, type LMRequest, type LMResponse } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const codeOf = (e: unknown): string => (e as { code?: string }).code ?? String(e);

describe("needs a decision", () => {
  // (the bound: a stop that takes more than 3 s has hung; the tool never ends)
  it.fails("a stop while a tool that ignores its signal never settles: the call rejects turn-aborted", async () => {
    const hang = tool("hang", { description: "Hangs.", input: {}, effects: "reads" }, () => new Promise<string>(() => {}));
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [hang] });
    const controller = new AbortController();
    const lm = scripted([{ toolCalls: [{ name: "hang", input: {} }] }, "done"]);
    setTimeout(() => controller.abort(), 50);
    const outcome = await Promise.race([
      fn("go", { lm, signal: controller.signal }).then(
        () => "done",
        (e: unknown) => codeOf(e),
      ),
      new Promise<string>((r) => setTimeout(() => r("hung"), 3_000)),
    ]);
    expect(outcome).toBe("turn-aborted");
  });

  it.fails("a model that structured-clones its request (a Worker's postMessage) is given one it can clone", async () => {
    const usage = { inputTokens: 1, outputTokens: 1 };
    const worker: LanguageModel = {
      specificationVersion: LM_SPEC,
      provider: "worker",
      model: "in-browser",
      nativeTools: true,
      generate: async (request: LMRequest): Promise<LMResponse> => {
        const sent = structuredClone(request); // what postMessage does
        return { text: `${sent.messages.length} messages`, toolCalls: [], finishReason: "stop", usage };
      },
    };
    const fn = ai("desk", { description: "Help.", input: { q: z.string() } });
    expect(await fn("hi", { lm: worker })).toBe("2 messages");
  });
});
