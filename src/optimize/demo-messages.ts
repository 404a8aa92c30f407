import { digestJson } from "../lm/digest.js";
import type { Message, ToolCall } from "../lm/types.js";
import { demoCall, pairResults, type Demo } from "./demo.js";

/** An example as the prompt shows it: its inputs, the messages of its steps, its answer. */
export interface ShownExample {
  inputs: Record<string, unknown>;
  value: unknown;
  steps?: Message[];
}

/** How many characters of the example's digest end its call ids (41 bits; an id stays well within OpenAI's 40 characters). */
const MARK_LENGTH = 8;

/**
 * The mark an example's call ids end with: a digest of its recorded steps.
 * The ids stay a pure function of the state (the same state sends the same
 * bytes), and an id of the examples' shape that a provider hands out, or a
 * model that writes its own ids makes up (`example_1_call_1`), is none of
 * them: only a copy of an id shown could be.
 */
// Not made from the live calls' ids: examples are made once per state and are the first messages of every
// request, so the request's fingerprint covers them (engine/ai-call.ts); ids changed when a later step brings
// a live id would change the key each kept reply of the turn is found by. And OpenAI sends a duplicate id as
// it is (providers/tool-ids.ts), so a bare `example_<n>_call_<k>` from the provider went out twice.
const markOf = (steps: NonNullable<Demo["steps"]>): string => digestJson("example", steps).slice(0, MARK_LENGTH);

/**
 * A demo's steps as provider-neutral messages: each step an assistant
 * message with its tool calls, then one tool message per call. Call ids are
 * made unique per example and apart from the live calls'
 * (`example_<n>_call_<k>_<mark>`, see markOf), and every call is answered
 * (a result the recording lacks reads as an error), so each provider's
 * pairing rules hold.
 */
export function demoMessages(demo: Demo, n: number): Message[] {
  const messages: Message[] = [];
  if (demo.steps === undefined || demo.steps.length === 0) return messages;
  const mark = markOf(demo.steps);
  let k = 0;
  for (const step of demo.steps) {
    const results = pairResults(step);
    const calls: ToolCall[] = [];
    const answers: Message[] = [];
    for (const [c, call] of step.toolCalls.entries()) {
      const id = `example_${n}_call_${++k}_${mark}`;
      // (its inputError too: a call whose arguments were not JSON is sent back as the model wrote them)
      calls.push({ ...demoCall(call), id });
      const result = results[c];
      const answer: Extract<Message, { role: "tool" }> = {
        role: "tool",
        toolCallId: id,
        name: call.name,
        content: result?.content ?? "(no result was recorded)",
      };
      // (a refusal, `refused`, is sent as a live run sent it: a plain result)
      if (result === undefined || result.isError) answer.isError = true;
      answers.push(answer);
    }
    if (calls.length === 0) continue;
    messages.push({ role: "assistant", content: step.text, toolCalls: calls }, ...answers);
  }
  return messages;
}

/** Demos as the earlier exchanges the prompt shows before the live input (numbered from 1). */
export const shownExamples = (demos: readonly Demo[]): ShownExample[] =>
  demos.map((demo, i) => {
    const steps = demoMessages(demo, i + 1);
    return steps.length > 0 ? { inputs: demo.inputs, value: demo.outputs.result, steps } : { inputs: demo.inputs, value: demo.outputs.result };
  });
