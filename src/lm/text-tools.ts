import { unfenced } from "./prompt.js";
import type { LMRequest, LMResponse, Message, ToolCall, ToolSpec } from "./types.js";

/**
 * Tools as text, for models without native tool calling: the same tools in
 * the same layout, offered in the system message; calls are read back from
 * `<tool_call>` blocks and results sent as `<tool_result>` blocks.
 */

const CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

export function toolsText(tools: readonly ToolSpec[]): string {
  const lines = tools.map((t) => `- ${t.name}: ${t.description}\n  input (JSON Schema): ${JSON.stringify(t.parameters)}`);
  return (
    "Tools:\n" +
    "To call a tool, reply with one block per call, and nothing else:\n" +
    '<tool_call>\n{"name": "<tool name>", "input": { ... }}\n</tool_call>\n' +
    "Each result comes back in a <tool_result> block. Answer in the reply form once you have what you need.\n\n" +
    lines.join("\n")
  );
}

const callText = (call: ToolCall): string =>
  `<tool_call>\n${JSON.stringify({ name: call.name, input: call.input })}\n</tool_call>`;

/** Renders a neutral request for a model that reads tools as text. */
export function toTextRequest(request: LMRequest): LMRequest {
  const messages: Message[] = [];
  for (const message of request.messages) {
    if (message.role === "system" && request.tools.length > 0) {
      messages.push({ role: "system", content: `${message.content}\n\n${toolsText(request.tools)}` });
    } else if (message.role === "assistant" && message.toolCalls?.length) {
      const parts = [message.content, ...message.toolCalls.map(callText)].filter((p) => p !== "");
      messages.push({ role: "assistant", content: parts.join("\n") });
    } else if (message.role === "tool") {
      const text = `<tool_result name="${message.name}" id="${message.toolCallId}">\n${message.content}\n</tool_result>`;
      const last = messages.at(-1);
      // consecutive results go in one user message
      if (last?.role === "user" && last.content.startsWith("<tool_result")) last.content += `\n${text}`;
      else messages.push({ role: "user", content: text });
    } else {
      messages.push({ ...message });
    }
  }
  const out: LMRequest = { ...request, messages, tools: [] };
  return out;
}

/**
 * Reads tool calls back from a text reply; a block that is not valid JSON
 * becomes a call with `inputError`. JSON the model fenced inside the block is
 * read as a fenced `<result>` is (models fence JSON out of habit).
 */
export function fromTextResponse(response: LMResponse): LMResponse {
  const calls: ToolCall[] = [];
  let n = 0;
  const text = response.text.replace(CALL, (_whole, body: string) => {
    n += 1;
    const id = `call_${n}`;
    try {
      const parsed = JSON.parse(unfenced(body)) as { name?: unknown; input?: unknown; arguments?: unknown };
      const name = typeof parsed.name === "string" ? parsed.name : "";
      calls.push({ id, name, input: parsed.input ?? parsed.arguments ?? {} });
    } catch (e) {
      calls.push({ id, name: /"name"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? "", input: body, inputError: `not valid JSON: ${(e as Error).message}` });
    }
    return "";
  });
  if (calls.length === 0) return response;
  return { ...response, text: text.trim(), toolCalls: [...response.toolCalls, ...calls], finishReason: "tool_calls" };
}
