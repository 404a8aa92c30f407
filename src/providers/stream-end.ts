/**
 * An OpenAI-compatible event stream's body ended at `data: [DONE]`. The
 * `openai` SDK skips what follows `[DONE]` but reads on until the body ends,
 * so a server (or proxy) that sends `[DONE]` and then leaves the connection
 * open held a whole reply until the client's timeout, ten minutes by
 * default. Where the reply's usage chunk comes, the reader stops at it (see
 * `ChunkAccumulator.ended`); a server that sends none (it ignores
 * `stream_options`) says the end only with `[DONE]`, which the SDK never
 * shows us: so the body is ended there, in the fetch our own client is made
 * with, and the connection closed.
 */

/** A fetch as the SDK calls one. */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The `[DONE]` line: a `data` field holding it, alone on its line. */
const DONE_LINE = /^data: ?\[DONE\]\s*$/;

/** `body`, ended after the chunk that holds a `[DONE]` line (the rest of the source cancelled). */
function endedAtDone(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let partial = ""; // a line not yet ended
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      controller.enqueue(value);
      const lines = (partial + decoder.decode(value, { stream: true })).split(/\r\n|\r|\n/);
      partial = lines.pop() ?? "";
      if (lines.some((line) => DONE_LINE.test(line))) {
        controller.close();
        reader.cancel().catch(() => {});
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * `fetch` (the global one, looked up at each call) with a successful event
 * stream's body ended at its `[DONE]` line; every other response is passed
 * on untouched.
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
