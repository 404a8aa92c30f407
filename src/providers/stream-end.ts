/**
 * An OpenAI-compatible event stream's body ended at `data: [DONE]`. The
 * `openai` SDK skips what follows `[DONE]` but reads on until the body ends,
 * so a server (or proxy) that sends `[DONE]` and then leaves the connection
 * open held a whole reply until the client's timeout, ten minutes by
 * default. Where the reply's usage chunk comes, the reader stops at it (see
 * `ChunkAccumulator.ended`); a server that sends none (it ignores
 * `stream_options`) says the end only with `[DONE]`, which the SDK never
 * shows us: so the body is ended there, in the fetch our own client is made
 * with, and the connection closed. The same fetch makes llama.cpp's
 * mid-stream error, sent in a field the SDK skips, one it reads (see
 * ERROR_LINE).
 */

/** A fetch as the SDK calls one. */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The `[DONE]` line: a `data` field holding it, alone on its line. */
const DONE_LINE = /^data: ?\[DONE\]\s*$/;

/**
 * A line of the field llama.cpp's server sends an error mid-stream in (HTTP
 * 200): `error: {"code":400,"message":"…","type":"…"}`, then `[DONE]`. SSE
 * has no such field, so the SDK skipped it, and the reply passed for one
 * cut short (`provider-network`, asked again), the server's words lost.
 */
const ERROR_LINE = /^error: ?(.*)$/;

/** A line as the SDK reads it: `data: {"error": …}` for an `error:` one (its words when not JSON: the message), else itself. */
function errorAsData(line: string): string {
  const value = ERROR_LINE.exec(line)?.[1];
  if (value === undefined) return line;
  let error: unknown;
  try {
    error = JSON.parse(value);
  } catch {
    error = undefined;
  }
  return `data: ${JSON.stringify({ error: error ?? { message: value } })}`;
}

/**
 * `text` with each `error:` line made the `data: {"error": …}` line the SDK
 * throws its `APIError` for, and whether one of its lines is `[DONE]`, in one
 * pass over its lines (ended as SSE ends them: not at U+2028, which a
 * model's text in a data line may hold).
 */
function asRead(text: string): { text: string; done: boolean } {
  let done = false;
  const parts = text.split(/(\r\n|\r|\n)/).map((part, i) => {
    if (i % 2 !== 0) return part;
    if (DONE_LINE.test(part)) done = true;
    return errorAsData(part);
  });
  return { text: parts.join(""), done };
}

/** Where the last whole line of `text` ends (0: none does). */
const wholeLinesEnd = (text: string): number => Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1;

/**
 * `body`, its `error:` lines made data (see ERROR_LINE), ended after the
 * line that is `[DONE]` (the rest of the source cancelled). Passed on a
 * whole line at a time: a line's end is what the SDK reads events by.
 */
function endedAtDone(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let partial = ""; // a line not yet ended
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // (each pull passes something on, or ends the stream: a pull that passed nothing might not be called again)
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          const rest = asRead(partial + decoder.decode()).text;
          if (rest !== "") controller.enqueue(encoder.encode(rest));
          controller.close();
          return;
        }
        const text = partial + decoder.decode(value, { stream: true });
        const end = wholeLinesEnd(text);
        partial = text.slice(end);
        if (end === 0) continue;
        const lines = asRead(text.slice(0, end));
        controller.enqueue(encoder.encode(lines.text));
        if (lines.done) {
          controller.close();
          reader.cancel().catch(() => {});
        }
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * `fetch` (the global one, looked up at each call) with a successful event
 * stream's body ended at its `[DONE]` line, its `error:` lines made data;
 * every other response is passed on untouched.
 *
 * @example
 * new OpenAI({ apiKey, fetch: withStreamsEndedAtDone() });
 */
export function withStreamsEndedAtDone(inner?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>): Fetch {
  return async (input, init) => {
    const response = await (inner ?? globalThis.fetch)(input, init);
    if (!response.ok || response.body === null || !/^text\/event-stream/i.test(response.headers.get("content-type") ?? "")) return response;
    return new Response(endedAtDone(response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
