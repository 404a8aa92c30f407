import { FunctaiError } from "../../src/errors.js";

/**
 * The parts of an MCP `tools/call` result functai reads.
 *
 * @example
 * const result: McpCallResult = { content: [{ type: "text", text: "refunded 39.00" }] };
 * outputOf("refund", result); // "refunded 39.00"
 */
export interface McpCallResult {
  content?: readonly { type: string; text?: string; [key: string]: unknown }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

const textOf = (result: McpCallResult): string | undefined => {
  const texts = (result.content ?? []).flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []));
  return texts.length > 0 ? texts.join("\n") : undefined;
};

/**
 * What the model is shown of an MCP tool's result: its structured content
 * when the server gives it, else its text parts (joined by line breaks),
 * else the content as it is. A result marked `isError` is a tool error the
 * model sees (thrown here, reported by the tool loop).
 *
 * @example
 * outputOf("find_order", { content: [{ type: "text", text: "…" }], structuredContent: { item: "kettle" } }); // { item: "kettle" }
 * outputOf("refund", { content: [{ type: "text", text: "refunded 39.00" }] });                             // "refunded 39.00"
 * outputOf("refund", { content: [{ type: "text", text: "card declined" }], isError: true });              // throws tool-failed
 */
export function outputOf(name: string, result: McpCallResult): unknown {
  if (result.isError === true) {
    const text = textOf(result) ?? (result.structuredContent ? JSON.stringify(result.structuredContent) : "the tool reported an error");
    throw new FunctaiError("tool-failed", text);
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const text = textOf(result);
  if (text !== undefined) return text;
  if (result.content === undefined) throw new FunctaiError("tool-failed", `the MCP server's result for ${name} has no content`);
  return result.content;
}
