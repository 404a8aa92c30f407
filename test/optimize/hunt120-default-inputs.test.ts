/**
 * DESIGN: `answer.withState(saved)` "makes the same requests as `better`". An example's inputs are shown as the
 * input schema reads them (defaults filled), read when the state is loaded: an input whose default is made anew
 * each time (a request id, today's date) is shown with another value by each load of the same saved state. A turn
 * of the optimized function resumed in a fresh process (the state loaded again) sends requests its journal has no
 * reply for: each step is paid again.
 *
 * Decided by the lead (hunt 125): an example shows the inputs it gives as the input schema reads them, and an
 * input it leaves out stays left out (its default is not filled).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

let made = 0;
const answer = ai("answer", {
  description: "Answer the question.",
  input: { question: z.string(), request_id: z.string().default(() => `r-${++made}`) },
});
const saved = JSON.stringify({
  instructions: "Answer the question.",
  demos: [{ inputs: { question: "Where is A-1?" }, outputs: { result: "At the carrier." } }],
});

describe("a saved state whose example leaves out an input with a default made each time", () => {
  it("loaded twice, makes the same requests", async () => {
    const lm = scripted(["<result>x</result>", "<result>x</result>"]);
    await answer.withState(JSON.parse(saved)).using({ lm })({ question: "Where is B-2?", request_id: "live" });
    await answer.withState(JSON.parse(saved)).using({ lm })({ question: "Where is B-2?", request_id: "live" });
    expect(lm.requests[1]!.messages).toEqual(lm.requests[0]!.messages);
  });
});
