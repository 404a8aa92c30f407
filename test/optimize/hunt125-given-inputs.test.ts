/**
 * The lead's decision (hunt 125): a worked example shows the inputs it gives as the input schema reads them
 * (transforms and coercions applied, as a live input is shown), and an input it leaves out stays left out: its
 * default is not filled, in `better` and in `withState(saved)` alike. So a state loaded again, in this process or
 * another, makes the same requests as `better`. (Defaults filled, an input whose default is made anew each time (a
 * request id) was shown with a new value at each load: `better` and `withState(its state)` sent different
 * requests, and a turn of the optimized function resumed elsewhere found no kept reply for its steps.)
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, FunctaiError, type AIState } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

let made = 0;
const answer = ai("answer", {
  description: "Answer the question.",
  input: {
    question: z.string().transform((s) => s.trim()),
    copies: z.coerce.number(),
    request_id: z.string().default(() => `r-${++made}`),
  },
});
const rows = [{ question: "  Where is A-1?  ", copies: "2", result: "At the carrier." }];

/** The messages a function sends for one live call. */
async function requestOf(fn: typeof answer): Promise<string> {
  const lm = scripted(["<result>x</result>"]);
  await fn.using({ lm })({ question: "Where is B-2?", copies: 1, request_id: "live" });
  return JSON.stringify(lm.requests[0]!.messages);
}

describe("an example shows the inputs it gives, as read, and no default", () => {
  it("better and withState(its state through JSON) send byte-identical requests", async () => {
    const better = await bootstrapFewShot(answer, rows, { teacher: scripted(["<result>At the carrier.</result>"]), maxLabeled: 0 });
    expect(better.demos).toHaveLength(1);
    const again = answer.withState(JSON.parse(JSON.stringify(better.state())) as AIState);
    const sent = await requestOf(better);
    expect(await requestOf(again)).toBe(sent);
    expect(await requestOf(answer.withState(JSON.parse(JSON.stringify(better.state())) as AIState))).toBe(sent);
  });

  it("the example's user message holds the inputs the row gave, as read (no default filled); inputs the schema refuses are still refused", async () => {
    const lm = scripted(["<result>x</result>"]);
    const state: AIState = {
      instructions: "Answer the question.",
      demos: [{ inputs: { question: "  Where is A-1?  ", copies: "2" }, outputs: { result: "a" } }],
    };
    await answer.withState(state).using({ lm })({ question: "Where is B-2?", copies: 1, request_id: "live" });
    expect(lm.requests[0]!.messages[1]).toEqual({ role: "user", content: "<question>\nWhere is A-1?\n</question>\n\n<copies>\n2\n</copies>" });
    let error: unknown;
    try {
      answer.withState({ ...state, demos: [{ inputs: { question: "q", copies: "many" }, outputs: { result: "a" } }] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({
      code: "input-invalid",
      message: expect.stringMatching(/example 1 does not fit answer's signature \(inputs\.copies: /),
    });
  });

  it("the inputs are laid out in the order of the function's inputs, as the live input is, whatever order the state wrote them in", async () => {
    const lm = scripted(["<result>x</result>"]);
    const state: AIState = { instructions: "Answer the question.", demos: [{ inputs: { copies: "2", question: "q" }, outputs: { result: "a" } }] };
    await answer.withState(state).using({ lm })({ question: "Where is B-2?", copies: 1, request_id: "live" });
    expect(lm.requests[0]!.messages[1]!.content).toBe("<question>\nq\n</question>\n\n<copies>\n2\n</copies>");
  });
});
