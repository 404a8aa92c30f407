/**
 * Two behaviours that needed a public-contract decision, decided by the lead (hunt 67 applied them):
 *
 * 1. A stopped turn waits for its tools to end (README: the send "rejects with
 *    turn-aborted once the turn's tools have ended and its end is kept"). A
 *    tool that ignores `ctx.signal` and never settles (a hung socket, a
 *    forgotten promise) made the stop hang for good. Decided: the stop is
 *    bounded by STOP_GRACE_MS (5 s, as server.close()); a changing tool stays
 *    `started` (unfinished, for a person), a reading one is not recorded
 *    (see test/engine/hunt67-stop-bound.test.ts).
 *
 * 2. A request's `messages` was an O(1) Proxy view of the history: a
 *    LanguageModel that hands its request to a Worker (`postMessage`) or keeps
 *    it with `structuredClone` failed with a DataCloneError. Decided: each paid
 *    request is given a real Array of its own (a shallow copy: O(history)
 *    pointers), of frozen messages.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, LM_SPEC, tool, type LanguageModel, type LMRequest, type LMResponse } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { settleOrHang } from "./fixtures.js";


describe("decided (hunt 62 decisions)", () => {
  // (the bound: the stop settles after the 5 s grace; 20 s leaves room for a loaded machine shared by several test
  // runs, whose timers may fire late. A stop that takes longer than that has hung: the tool never ends)
  it("a stop while a tool that ignores its signal never settles: the call rejects turn-aborted", async () => {
    const hang = tool("hang", { description: "Hangs.", input: {}, effects: "reads" }, () => new Promise<string>(() => {}));
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [hang] });
    const controller = new AbortController();
    const lm = scripted([{ toolCalls: [{ name: "hang", input: {} }] }, "done"]);
    setTimeout(() => controller.abort(), 50);
    const outcome = await settleOrHang(fn("go", { lm, signal: controller.signal }));
    expect(outcome).toBe("turn-aborted");
  });

  it("a model that structured-clones its request (a Worker's postMessage) is given one it can clone", async () => {
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
