import type { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { FunctaiError, describeError } from "../../src/errors.js";
import { fromSdk, type JsonCheck } from "./validate.js";

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

/**
 * What is wrong with a result of a tool that lists an output schema (`check`:
 * that schema compiled), else `null`: its structured content must be there,
 * and fit. A result marked `isError` is not checked: the schema says what the
 * tool's results are, not its errors (the SDK's `McpServer` does not check
 * them either), and the model is shown the error (see {@link outputOf}).
 * The client's own check uses what its last `listTools` cached, and each
 * `listTools` forgets what the one before it cached: after the pages of a
 * listing, only the last page's tools would be checked.
 *
 * @example
 * const check = makeCheck({ type: "object", properties: { locked: { type: "boolean" } } });
 * outputProblem(check, { content: [], structuredContent: { locked: "yes" } }); // "its structured content does not match the tool's output schema: …"
 */
export function outputProblem(check: JsonCheck, result: McpCallResult): string | null {
  if (result.isError === true) return null;
  const structured: unknown = result.structuredContent;
  if (!structured) return "the tool has an output schema, and its result has no structured content";
  const problem = check(structured);
  return problem === null ? null : `its structured content does not match the tool's output schema: ${problem}`;
}

/**
 * What one `client.callTool` reads the server's result with: the SDK's own
 * schema of a `tools/call` result (`schema`, passed to `callTool`), and
 * whether a result arrived at all (`answered`).
 */
export interface ResultReader {
  readonly schema: typeof CallToolResultSchema;
  answered(): boolean;
}

/**
 * Makes a `ResultReader` per call, the SDK's schema loaded once. The reader
 * notes that the server's result arrived before the SDK checks it, so a call
 * that then fails tells "the server answered, and its answer cannot be read"
 * (the SDK's plain ZodError, or the output-schema check of its structured
 * content: the server acted) from "nothing came back" or "the server answered
 * with an error" — which the SDK's errors alone do not (its output-schema
 * check throws the same McpError codes a server's error answer carries).
 *
 * @example
 * const reader = (await loadResultReader())();
 * await client.callTool({ name: "refund", arguments: input }, reader.schema).catch(() => reader.answered()); // true: a result came back
 */
export async function loadResultReader(): Promise<() => ResultReader> {
  const { CallToolResultSchema: sdkSchema } = await fromSdk(() => import("@modelcontextprotocol/sdk/types.js"));
  return () => {
    let answered = false;
    const noted = z.preprocess((result) => ((answered = true), result), sdkSchema);
    // it parses to what the SDK's schema does: only its type differs
    return { schema: noted as unknown as typeof CallToolResultSchema, answered: () => answered };
  };
}

/**
 * What is wrong with a server's answer the SDK could not read, in a line:
 * a ZodError's issues by path (`content: Invalid input: expected array,
 * received string`) rather than its JSON dump; any other error's message.
 *
 * @example
 * unreadable(CallToolResultSchema.safeParse({ content: "froze it" }).error); // "content: Invalid input: expected array, received string"
 */
export function unreadable(e: unknown): string {
  const issues = (e as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return describeError(e);
  return issues
    .map((issue: { path?: unknown; message?: unknown }) => {
      const path = Array.isArray(issue?.path) && issue.path.length > 0 ? issue.path.map(String).join(".") : "the result";
      return `${path}: ${typeof issue?.message === "string" ? issue.message : "not as MCP says"}`;
    })
    .join("; ");
}
