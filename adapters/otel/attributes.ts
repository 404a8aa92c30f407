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
  /** The event a waiting turn's span ends with. */
  waitEvent: "functai.wait",
  approvals: "functai.wait.approvals",
  approvalIds: "functai.wait.approval_ids",
} as const;

/** A value as an attribute: JSON text (attributes hold strings, numbers, booleans and their arrays). */
export const jsonText = (value: unknown): string => {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  } catch {
    return String(value);
  }
};
