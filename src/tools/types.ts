import type { z } from "zod";
import type { Effects } from "../records/types.js";
import type { Frame } from "../engine/frame.js";

export type InputShape = z.ZodRawShape;

/**
 * What a running tool is told about its call.
 *
 * @example
 * const refund = tool("refund", { description: "Refund an order.", input: { id: z.string() }, effects: "changes" },
 *   async ({ id }, ctx: ToolContext) => payments.refund(id, { idempotencyKey: ctx.idempotencyKey, signal: ctx.signal }));
 */
export interface ToolContext {
  /** Its number among the calling call's tool calls, 1, 2, … across all steps. */
  invocation: number;
  /** Call names from the outermost to this tool: `support/answer/refund`. */
  path: string;
  /** The calling call's place in its tree: `support#1/answer#1`. */
  site: string;
  signal: AbortSignal;
  /**
   * Stable for this tool call: the same for its first run and for any rerun
   * a person asks for (`resume({ rerun: [n] })`), in any process. Pass it to
   * APIs that deduplicate (a payment provider's Idempotency-Key header), so
   * that a call run twice acts once. Made from the conversation, the turn,
   * the call's site and its invocation (a plain call's own turn id without
   * a conversation); at most 64 characters of `[0-9a-z-.]`.
   */
  readonly idempotencyKey: string;
  /** Pass as `{ ctx }` to calls this tool makes, where the platform cannot carry it across `await` (browsers). */
  readonly frame: Frame;
  /**
   * Shows the person something the model is not shown (a receipt's card
   * digits, an MCP part meant for the user): it goes with this call's result,
   * as `shown` on the stream's `tool_result` event and on the turn's `tool`
   * record, never into the model's messages. Call it while the tool runs
   * (after it returned: `turn-state`), with JSON (else it throws a
   * TypeError, which fails the tool); each value is kept as it was then.
   *
   * @example
   * const charge = tool("charge", { description: "Charge the card.", input: { amount: z.number() }, effects: "changes" },
   *   async ({ amount }, ctx) => { const r = await cards.charge(amount); ctx.show(`Card ending ${r.last4} charged ${amount}`); return "charged"; });
   */
  show(value: unknown): void;
}

/**
 * Anything a model can call: a plain tool, an AI function or a program.
 *
 * @example
 * const tools: ToolLike[] = [lookupOrder, answer, support]; // a tool, an AI function, a program
 * const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
 */
export interface ToolLike {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodObject<InputShape>;
  /** The JSON Schema the model is shown, as given (tools from elsewhere: an MCP server's); left out, it is made from `inputSchema`, which checks inputs either way. */
  readonly parameters?: Record<string, unknown>;
  /** What rules see: `"reads"`, `"changes"`, or `null` (said nothing: counted as changes). */
  readonly toolEffects: Effects | null;
  /** Composite tools (AI functions, programs) are journaled inside, so they are re-entered on resume, never "unfinished". */
  readonly composite: boolean;
  /**
   * What it is, for the plugins' hooks (`PluginToolCall.kind`): `"tool"` (made with `tool()`), `"mcp"` (an MCP
   * server's), `"ai"` or `"program"` (a function used as a tool). Left out by a tool made elsewhere: told as none.
   */
  readonly kind?: "tool" | "mcp" | "ai" | "program";
  /** Runs it as a tool call of the turn in `ctx` (the engine calls this; user code calls the tool itself). */
  runAsTool(input: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
  /**
   * What is wrong with a result a person gives for a call of it that may have run (`resume({ results })`), else
   * `null`. A tool whose own results are checked (an MCP tool's output schema) holds a person's to the same check:
   * one that breaks it is refused, with nothing written, never shown to the model as the tool's result.
   */
  checkResult?(output: unknown): string | null;
}
