/** Anthropic Messages API streams as its server writes them, for the mock server's `sse` replies. */

/** Events as Anthropic writes them: `event: <type>`, then the event as its data. */
export const claudeSse = (events: readonly unknown[]): string =>
  events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** A stream's `message_start`: an empty assistant message, its usage so far. */
export const claudeMessageStart = ({
  id = "msg_01",
  model = "claude-haiku-4-5-20251001",
  usage = { input_tokens: 40, output_tokens: 1 } as Record<string, number>,
} = {}) => ({
  type: "message_start",
  message: { id, type: "message", role: "assistant", model, content: [] as unknown[], stop_reason: null, stop_sequence: null, usage },
});

/** How {@link claudeTextStream}'s reply starts and ends. */
export interface ClaudeTextReply {
  id?: string;
  model?: string;
  inputTokens?: number;
  /** The output tokens its `message_delta` counts. */
  outputTokens?: number;
  /** The `message_delta`'s delta: `end_turn` unless given. */
  stop?: Record<string, unknown>;
}

/** A streamed Claude reply of one text block sent as `texts`, one delta each, ended by `message_stop`. */
export function claudeTextStream(texts: readonly string[], reply: ClaudeTextReply = {}): string {
  const { id = "msg_01", model = "claude-haiku-4-5-20251001", inputTokens = 40, outputTokens = 14 } = reply;
  return claudeSse([
    claudeMessageStart({ id, model, usage: { input_tokens: inputTokens, output_tokens: 1 } }),
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ...texts.map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: reply.stop ?? { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: outputTokens } },
    { type: "message_stop" },
  ]);
}
