/**
 * The attribute names spans carry: OpenTelemetry's GenAI semantic
 * conventions (gen_ai.*), and functai's own (functai.*).
 *
 * @example
 * const tools = exporter.getFinishedSpans().filter((s) => s.attributes[GEN_AI.operation] === "execute_tool");
 * tools.map((s) => [s.attributes[GEN_AI.toolName], s.attributes[FUNCTAI.approval]]); // [["refund", "approved"]]
 */
export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  temperature: "gen_ai.request.temperature",
  maxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
} as const;

/**
 * The MCP semantic conventions' attributes an `execute_tool` span of an MCP tool carries: the conventions ask that
 * MCP attributes be added to the tool span an outer GenAI instrumentation makes, rather than a second span.
 */
export const MCP = {
  /** The request the call is: `tools/call`. */
  method: "mcp.method.name",
} as const;

/**
 * functai's own attributes and the wait event's name (see {@link GEN_AI} for an example).
 *
 * @example
 * const exporter = new InMemorySpanExporter();
 * // … after a turn:
 * const turnSpans = exporter.getFinishedSpans().filter((s) => s.attributes[FUNCTAI.turn] !== undefined);
 * turnSpans.map((s) => s.attributes[FUNCTAI.state]); // ["done"]
 */
export const FUNCTAI = {
  turn: "functai.turn",
  attempt: "functai.attempt",
  resumed: "functai.resumed",
  mode: "functai.mode",
  state: "functai.turn.state",
  input: "functai.turn.input",
  site: "functai.site",
  path: "functai.path",
  step: "functai.step",
  effects: "functai.effects",
  invocation: "functai.invocation",
  approval: "functai.approval",
  approvedBy: "functai.approval.by",
  /** Why a person (or the approve function) refused the call: recorded only with `content: true` (the model reads it). */
  refusalReason: "functai.approval.reason",
  /** A call left in doubt that a person answered: `given` (they said what it returned; it did not run) or `rerun`. */
  answered: "functai.answered",
  answeredBy: "functai.answered.by",
  /** The event a waiting turn's span ends with. */
  waitEvent: "functai.wait",
  approvals: "functai.wait.approvals",
  approvalIds: "functai.wait.approval_ids",
  /**
   * On the wait event of a run stopped by tool calls left in doubt (`turn-unfinished`): their paths, for a person to
   * settle (the innermost calls: for a call that delegated, the delegated turn's, as for its approvals).
   */
  unfinishedCalls: "functai.wait.unfinished",
  /** Beside them, each call's key as `resume({ results, rerun })` takes it (`site:invocation`): calls of one tool share a path. */
  unfinishedIds: "functai.wait.unfinished_ids",
} as const;

/**
 * The most characters one attribute of contents (or a span's status message) carries. Exporters send spans in
 * batches, and collectors refuse a request past their size (OTLP/gRPC's default: 4 MB), every span of it lost: a
 * tool's 10 MB result recorded whole lost the batch it was in. Far past what a trace is read for, each is bounded.
 */
export const MAX_ATTRIBUTE_CHARS = 100_000;

/** The shortest a long string is cut to when a value's JSON is shortened (see {@link jsonText}). */
const SHORTEST = 32;

/** `text` cut to its first `keep` characters, saying so and how long it was. */
const cut = (text: string, keep: number): string =>
  `${text.slice(0, keep)}… [cut by functai: ${text.length.toLocaleString("en-US")} characters in all]`;

/**
 * A text as an attribute (or a status message): past {@link MAX_ATTRIBUTE_CHARS}, its start, saying it was cut.
 *
 * @example
 * boundedText("r".repeat(10_000_000)); // "rrr…r… [cut by functai: 10,000,000 characters in all]" (some 100,000 characters)
 */
export const boundedText = (text: string): string => (text.length <= MAX_ATTRIBUTE_CHARS ? text : cut(text, MAX_ATTRIBUTE_CHARS - 80));

/**
 * A value as an attribute: JSON text (attributes hold strings, numbers, booleans and their arrays), bounded at
 * {@link MAX_ATTRIBUTE_CHARS}: past it, its longest strings are cut (each saying how long it was), shorter and
 * shorter until it fits, so it stays JSON a backend reads (the GenAI conventions' messages); a value of so many
 * small parts that it does not fit even so is cut as text. A string is itself, bounded.
 *
 * @example
 * jsonText({ rows: "r".repeat(10_000_000) }); // '{"rows":"rrr…r… [cut by functai: 10,000,000 characters in all]"}'
 */
export const jsonText = (value: unknown): string => {
  if (typeof value === "string") return boundedText(value);
  let whole: string;
  try {
    for (let keep = MAX_ATTRIBUTE_CHARS; keep >= SHORTEST; keep = Math.floor(keep / 2)) {
      const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" && v.length > keep ? cut(v, keep) : v)) ?? "null";
      if (text.length <= MAX_ATTRIBUTE_CHARS) return text;
    }
    whole = JSON.stringify(value) ?? "null";
  } catch {
    whole = String(value);
  }
  return boundedText(whole);
};
