/**
 * An event stream that came whole, as text, to a request sent with
 * `stream: false`. Some OpenAI-compatible servers stream whatever they are
 * asked (mini-sglang: sgl-project/mini-sglang#51; unsloth's server before
 * unslothai/unsloth#6570), and the SDKs give such a body back as its text,
 * since it is not JSON: no reply by itself, read event by event (as the
 * stream it is) it is one. The mirror of a streamed request answered whole
 * (see `eventStream` in errors.ts).
 */
import type { LMResponse } from "../lm/types.js";
import { type StreamAccumulator, notAReply, streamCutShort } from "./errors.js";

/** How an event stream's text begins: a field (`data:`, `event:`, …) or a comment (`:`). */
const STREAM_START = /^(?:data|event|id|retry)?:/;

/**
 * The `data` of each event of an event stream's text, in order (the end
 * marker `[DONE]` and comments left out); undefined when the text holds no
 * event (a page, plain words).
 *
 * @example
 * eventData('data: {"a":1}\n\ndata: [DONE]\n\n'); // ['{"a":1}']
 */
export function eventData(text: string): string[] | undefined {
  if (!STREAM_START.test(text.trimStart())) return undefined;
  const data: string[] = [];
  for (const event of text.split(/\r?\n\r?\n|\r\r/)) {
    const lines = event
      .split(/\r?\n|\r/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice("data:".length).replace(/^ /, ""));
    if (lines.length === 0) continue;
    const payload = lines.join("\n");
    if (payload.startsWith("[DONE]")) continue;
    data.push(payload);
  }
  return data;
}

/**
 * The reply an event stream's whole text holds, read by the provider's own
 * stream reader; undefined when `body` is no event stream (it is then read
 * as a whole reply is). An event that is an error (`isError`) is that error,
 * as `notAReply` reads it; a stream without its end is cut short
 * (`provider-network`), as a live one is; an event that is not JSON throws
 * the SyntaxError, which is `provider-response`.
 */
export function replyOfEventText<E>(
  provider: string,
  body: unknown,
  reply: StreamAccumulator<E>,
  isError: (event: unknown) => boolean,
): LMResponse | undefined {
  if (typeof body !== "string") return undefined;
  const data = eventData(body);
  if (data === undefined) return undefined;
  for (const payload of data) {
    const event = JSON.parse(payload) as unknown;
    if (isError(event)) throw notAReply(provider, event, "a reply");
    reply.add(event as E);
  }
  if (!reply.complete) throw streamCutShort(provider);
  return reply.response();
}
