import type { FinishReason, LMResponse, Message } from "../../src/lm/types.js";

/**
 * A message as the GenAI semantic conventions record it in
 * `gen_ai.input.messages` and `gen_ai.output.messages`: a role and its
 * parts (text, a tool call, a tool's answer), never functai's own shape. A
 * reader of the conventions (a tracing backend) finds nothing in a message
 * that has no `parts`.
 */
interface ChatMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

type Part =
  | { type: "text"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: string; is_error?: true };

const text = (content: string): Part[] => (content === "" ? [] : [{ type: "text", content }]);

function chatMessage(m: Message): ChatMessage {
  switch (m.role) {
    case "assistant":
      return {
        role: m.role,
        parts: [...text(m.content), ...(m.toolCalls ?? []).map((c): Part => ({ type: "tool_call", id: c.id, name: c.name, arguments: c.input }))],
      };
    case "tool":
      return {
        role: m.role,
        parts: [
          m.isError === true
            ? { type: "tool_call_response", id: m.toolCallId, response: m.content, is_error: true }
            : { type: "tool_call_response", id: m.toolCallId, response: m.content },
        ],
      };
    default:
      return { role: m.role, parts: [{ type: "text", content: m.content }] };
  }
}

/**
 * The conventions' finish reasons of an output message (`tool_call`, not a
 * provider's `tool_calls`). `gen_ai.response.finish_reasons` keeps the reason
 * as functai has it.
 */
const FINISH: Record<FinishReason, string> = {
  stop: "stop",
  tool_calls: "tool_call",
  length: "length",
  content_filter: "content_filter",
  refusal: "content_filter",
  other: "other",
};

/**
 * A request's messages as `gen_ai.input.messages` holds them.
 *
 * @example
 * inputMessages([{ role: "user", content: "Where is A-1042?" }]); // [{ role: "user", parts: [{ type: "text", content: "Where is A-1042?" }] }]
 */
export const inputMessages = (messages: readonly Message[]): ChatMessage[] => messages.map(chatMessage);

/**
 * A reply as `gen_ai.output.messages` holds it: one assistant message with its finish reason.
 *
 * @example
 * outputMessages({ text: "", toolCalls: [{ id: "c1", name: "lookup_order", input: { order_id: "A-1042" } }], finishReason: "tool_calls", usage });
 * // [{ role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "lookup_order", arguments: { order_id: "A-1042" } }], finish_reason: "tool_call" }]
 */
export const outputMessages = (response: LMResponse): ChatMessage[] => [
  {
    ...chatMessage({ role: "assistant", content: response.text, toolCalls: response.toolCalls }),
    // (its own keys only: a custom model's "constructor" is no key of FINISH, and was read as Object's function)
    finish_reason: Object.hasOwn(FINISH, response.finishReason) ? FINISH[response.finishReason] : String(response.finishReason),
  },
];
