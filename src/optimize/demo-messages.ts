import type { Message, ToolCall } from "../lm/types.js";
import type { Demo } from "./demo.js";

/** An example as the prompt shows it: its inputs, the messages of its steps, its answer. */
export interface ShownExample {
  inputs: Record<string, unknown>;
  value: unknown;
  steps?: Message[];
}

/**
 * A demo's steps as provider-neutral messages: each step an assistant
 * message with its tool calls, then one tool message per call. Call ids are
 * made unique per example (`example_<n>_call_<k>`), and every call is
 * answered (a result the recording lacks reads as an error), so each
 * provider's pairing rules hold.
 */
export function demoMessages(demo: Demo, n: number): Message[] {
  const messages: Message[] = [];
  let k = 0;
  for (const step of demo.steps ?? []) {
    const results = [...step.results];
    const calls: ToolCall[] = [];
    const answers: Message[] = [];
    for (const call of step.toolCalls) {
      const id = `example_${n}_call_${++k}`;
      calls.push({ id, name: call.name, input: call.input });
      // results pair with calls by id (ids may repeat across steps, never within one), else in order
      const at = results.findIndex((r) => r.id === call.id);
      const result = at >= 0 ? results.splice(at, 1)[0] : undefined;
      const answer: Extract<Message, { role: "tool" }> = { role: "tool", toolCallId: id, name: call.name, content: result?.content ?? "(no result was recorded)" };
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
