import type { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { FunctaiError, describeError } from "../../src/errors.js";
import { isRecord } from "../../src/runtime/values.js";
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

type Part = NonNullable<McpCallResult["content"]>[number];

/**
 * Whether a part is the model's to see: MCP's `annotations.audience` names
 * whom a part is for, and one that leaves the assistant out (`["user"]`) is
 * for the person only. No audience, or an empty one, names no one: shown.
 */
function forModel(part: Part): boolean {
  const audience = (part.annotations as { audience?: unknown } | null | undefined)?.audience;
  return !Array.isArray(audience) || audience.length === 0 || audience.includes("assistant");
}

/**
 * The parts of a result for the user only (see {@link forModel}), as the
 * server gave them: the tool shows them to the person (`ctx.show`), on the
 * call's `tool_result` event and in its record.
 */
export function userParts(result: McpCallResult): Part[] {
  if (!Array.isArray(result.content)) return [];
  let kept = 0;
  return result.content
    .filter((part) => !forModel(part))
    .map((part) => {
      const size = JSON.stringify(part)?.length ?? 0;
      if (kept + size <= MAX_SHOWN_CHARS) {
        kept += size;
        return part;
      }
      // past the bound: a note in its place, for the person (the call's result stands; the part is not kept)
      const type = typeof part.type === "string" ? part.type.slice(0, 40) : "unknown";
      return {
        type: "text",
        text: `functai left out a ${type} part of ${size.toLocaleString("en-US")} characters meant for you: a call's parts for the person are kept up to ${MAX_SHOWN_CHARS.toLocaleString("en-US")} characters in all`,
        annotations: { audience: ["user"] },
      } as Part;
    });
}

/**
 * The parts for the person only that one call keeps, in characters of their
 * JSON (about a 1.5 MB image as base64): they ride on the call's `done`
 * record, which every resume reads back. A part past it is a note saying
 * what was left out; the call's result for the model is not touched.
 */
export const MAX_SHOWN_CHARS = 2_000_000;

/** The size of base64 data in bytes, in words ("3,000 bytes"): what the model is told of data it is not shown. */
function sizeOf(base64: unknown): string {
  if (typeof base64 !== "string") return "size unknown";
  const digits = base64.replace(/[\s=]/g, "").length;
  return `${Math.floor((digits * 3) / 4).toLocaleString("en-US")} bytes`;
}

const said = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * One part as the model is shown it: text as it is; an embedded text
 * resource's text under its uri; a link as its name and uri; binary data
 * (an image, audio, a resource's `blob`) named by its MIME type and size,
 * never pasted as base64 into the model's context (it reads base64 as
 * thousands of tokens of noise); a part of a type MCP does not name, by its type.
 */
function partText(part: Part): string {
  const { type } = part;
  if (type === "text" && typeof part.text === "string") return part.text;
  if (type === "image" || type === "audio") return `[${type} (${said(part.mimeType) ?? "of an unknown type"}, ${sizeOf(part.data)}), not shown]`;
  if (type === "resource_link") {
    const about = [said(part.mimeType), said(part.description)].filter((s) => s !== undefined).join(": ");
    return `[resource link: ${said(part.name) ?? "unnamed"} <${String(part.uri)}>${about ? ` (${about})` : ""}]`;
  }
  if (type === "resource" && part.resource !== null && typeof part.resource === "object") {
    const { uri, mimeType, text, blob } = part.resource as Record<string, unknown>;
    if (typeof text === "string") return `[resource <${String(uri)}>${said(mimeType) ? ` (${mimeType})` : ""}]\n${text}`;
    return `[resource <${String(uri)}> (${said(mimeType) ?? "of an unknown type"}, ${sizeOf(blob)}), not shown]`;
  }
  return `[a ${JSON.stringify(String(type))} part, not shown]`;
}

/**
 * What the model is shown of a result's content: each part it may see (see
 * {@link forModel}) as {@link partText} says, joined by line breaks, then how
 * many parts were for the user only (left out, not dropped without a word:
 * the person is shown them, see {@link userParts});
 * `undefined` when there are no parts.
 */
function contentText(result: McpCallResult): string | undefined {
  const parts = Array.isArray(result.content) ? result.content : [];
  const lines = parts.filter(forModel).map(partText);
  const hidden = parts.length - lines.length;
  if (hidden > 0) lines.push(`[${hidden} ${hidden === 1 ? "part" : "parts"} of the result for the user only, not shown]`);
  return lines.length > 0 ? lines.join("\n") : undefined;
}

/**
 * What the model is shown of an MCP tool's result: its structured content
 * when the server gives it, else its content parts (joined by line breaks:
 * text as it is, an embedded resource's text under its uri, a link as its
 * name and uri, images, audio and blobs by their MIME type and size, never
 * their base64; parts whose `annotations.audience` leaves the assistant out
 * are for the user, left out and counted), else the content as it is (no
 * parts). A result marked `isError` is a tool error the model sees (thrown
 * here, reported by the tool loop).
 *
 * @example
 * outputOf("find_order", { content: [{ type: "text", text: "…" }], structuredContent: { item: "kettle" } }); // { item: "kettle" }
 * outputOf("refund", { content: [{ type: "text", text: "refunded 39.00" }] });                             // "refunded 39.00"
 * outputOf("snapshot", { content: [{ type: "image", data: "iVBORw0K…", mimeType: "image/png" }] });         // "[image (image/png, 3,000 bytes), not shown]"
 * outputOf("refund", { content: [{ type: "text", text: "card declined" }], isError: true });              // throws tool-failed
 */
export function outputOf(name: string, result: McpCallResult): unknown {
  if (result.isError === true) {
    // an empty text says nothing: the model would be shown an error with no words ("Error: FunctaiError")
    const said = contentText(result);
    const text = said?.trim() ? said : result.structuredContent ? JSON.stringify(result.structuredContent) : "the tool reported an error";
    throw new FunctaiError("tool-failed", text);
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const text = contentText(result);
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
 * A copy of `record` without the keys (of `keys`, or any) whose value is `null`.
 *
 * @example
 * withoutNulls({ nextCursor: null, tools: [] }, ["nextCursor"]); // { tools: [] }
 */
export function withoutNulls(record: Record<string, unknown>, keys?: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key, value]) => value !== null || (keys !== undefined && !keys.includes(key))));
}

/** The fields of a content part (of any type) MCP lets a server leave out, and of an embedded resource. */
const OPTIONAL_PART_KEYS = ["annotations", "_meta", "title", "description", "mimeType", "size", "icons"] as const;
const OPTIONAL_RESOURCE_KEYS = ["mimeType", "_meta"] as const;

/** A content part with `null` read as "left out" where MCP lets it be left out (see {@link nullsLeftOut}). */
function partNullsLeftOut(part: unknown): unknown {
  if (!isRecord(part)) return part;
  const kept = withoutNulls(part, OPTIONAL_PART_KEYS);
  if (isRecord(kept.annotations)) kept.annotations = withoutNulls(kept.annotations);
  if (isRecord(kept.resource)) kept.resource = withoutNulls(kept.resource, OPTIONAL_RESOURCE_KEYS);
  return kept;
}

/**
 * A tools/call result with `null` read as "left out" where MCP lets a field
 * be left out: `structuredContent`, `isError`, and a part's optional fields
 * (its annotations, each of their hints). Servers of other makes write
 * `null` for a field of their own type left empty, and the SDK's schema
 * takes a value of the field's type or nothing: every answer of such a
 * server could not be read (a changing call in doubt each time). A value of
 * any other wrong type, and a required field that is `null`, are still refused.
 */
function nullsLeftOut(result: unknown): unknown {
  if (!isRecord(result)) return result;
  const read = withoutNulls(result, ["structuredContent", "isError"]);
  if (Array.isArray(read.content)) read.content = read.content.map(partNullsLeftOut);
  return read;
}

/**
 * What one `client.callTool` reads the server's result with: the SDK's own
 * schema of a `tools/call` result (`schema`, passed to `callTool`), and
 * whether a result arrived at all (`answered`).
 */
export interface ResultReader {
  readonly schema: typeof CallToolResultSchema;
  answered(): boolean;
  /**
   * Whether the answer had neither `content` nor `structuredContent` (nor
   * `isError: true`): MCP requires `content` of a tool's result, and the SDK
   * fills a missing one in with `[]`, which would show the model an empty
   * result where the server said something else (the first protocol
   * version's `toolResult`) or nothing.
   */
  bare(): boolean;
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
    let bare = false;
    const noted = z.preprocess((result) => {
      answered = true;
      const { content, structuredContent, isError } = (result ?? {}) as { content?: unknown; structuredContent?: unknown; isError?: unknown };
      // (an error with nothing to say is still the server's word that the tool failed: the model is told so)
      bare = content === undefined && (structuredContent === undefined || structuredContent === null) && isError !== true;
      return nullsLeftOut(result);
    }, sdkSchema);
    // it parses to what the SDK's schema does: only its type differs
    return { schema: noted as unknown as typeof CallToolResultSchema, answered: () => answered, bare: () => bare };
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
