/**
 * An Anthropic event stream read by each event's JSON `type` where the
 * server gave the event no `event:` line. The SSE format makes `event:`
 * optional, and some Anthropic-compatible gateways and proxies leave it out
 * (the type is in the event's JSON too); `@anthropic-ai/sdk` dispatches by
 * the `event:` field alone and drops every event without one, so such a
 * stream read as empty: "ended before the reply was complete", retried and
 * paid for again, never read. Each such event is given the `event:` line its
 * JSON names, in the fetch our own client is made with.
 */

/** A fetch as the SDK calls one. */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The blank line that ends an event (any of SSE's line ends). */
const EVENT_END = /\r\n\r\n|\n\n|\r\r/g;

/** An event type as Anthropic's are named (`message_start`, `content_block_delta`, `error`, …). */
const TYPE_NAME = /^[A-Za-z_][\w.-]*$/;

/** One event's text with the `event:` line its JSON's `type` names, where it had none (else as it is). */
function named(event: string): string {
  const lines = event.split(/\r\n|\r|\n/);
  if (lines.some((line) => line.startsWith("event:")) || !lines.some((line) => line.startsWith("data:"))) return event;
  const data = lines
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice("data:".length).replace(/^ /, ""))
    .join("\n");
  let type: unknown;
  try {
    type = (JSON.parse(data) as { type?: unknown } | null)?.type;
  } catch {
    return event;
  }
  return typeof type === "string" && TYPE_NAME.test(type) ? `event: ${type}\n${event}` : event;
}

/** Where the last whole event in `text` ends (after its blank line); 0 where none has. */
function wholeEventsEnd(text: string): number {
  let end = 0;
  for (const m of text.matchAll(EVENT_END)) end = m.index + m[0].length;
  return end;
}

/** Each event of `text` (whole events, or the stream's rest) named: see `named`. */
const nameEvents = (text: string): string =>
  text
    .split(/(\r\n\r\n|\n\n|\r\r)/)
    .map((part, i) => (i % 2 === 0 && part !== "" ? named(part) : part))
    .join("");

/** `body` with its events named, each passed on as soon as it is whole. */
function withNames(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = "";
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const end = wholeEventsEnd(pending);
        if (end === 0) return;
        controller.enqueue(encoder.encode(nameEvents(pending.slice(0, end))));
        pending = pending.slice(end);
      },
      flush(controller) {
        pending += decoder.decode();
        if (pending !== "") controller.enqueue(encoder.encode(nameEvents(pending)));
      },
    }),
  );
}

/**
 * `fetch` (the global one, looked up at each call) with a successful event
 * stream's events named by their JSON `type` where they had no `event:`
 * line; every other response is passed on untouched.
 *
 * @example
 * new Anthropic({ apiKey, fetch: withEventsNamed() });
 */
export function withEventsNamed(inner?: Fetch): Fetch {
  return async (input, init) => {
    const response = await (inner ?? globalThis.fetch)(input, init);
    if (!response.ok || response.body === null || !/^text\/event-stream/i.test(response.headers.get("content-type") ?? "")) return response;
    const headers = new Headers(response.headers);
    // the body is given anew (decoded, longer): its old length and encoding no longer hold
    headers.delete("content-length");
    headers.delete("content-encoding");
    return new Response(withNames(response.body), { status: response.status, statusText: response.statusText, headers });
  };
}
