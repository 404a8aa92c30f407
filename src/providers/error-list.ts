/**
 * Error bodies the `openai` SDK can read. The SDK looks for an error's words
 * under the body's `error` key only; where a server puts them elsewhere the
 * caller was told "400 status code (no body)", the provider's own words (a
 * schema it refuses, a context too long, a key refused) lost:
 * - Gemini's OpenAI-compatible API answers with a JSON list holding the error
 *   (`[{ "error": { "code": 400, "message": …, "status": "INVALID_ARGUMENT" } }]`);
 * - vLLM before 0.10 puts it at the top (`{ "object": "error", "message", "type", "code" }`);
 * - FastAPI-based servers say `{ "detail": … }` (a string, or a list of field errors);
 * - API gateways (Azure API Management, Kong, AWS's) say `{ "message": … }`;
 * - LM Studio and text-generation-inference give the error as a string
 *   (`{ "error": "…" }`), which the SDK shows quoted, as JSON.
 * The SDK keeps nothing of the body, so it is mended as it arrives, in the
 * fetch our own client is made with, into the `{ error }` the SDK reads.
 */

/** A fetch as the SDK calls one. */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const record = (x: unknown): Record<string, unknown> | undefined =>
  typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;

/** FastAPI's `detail` as words: a string as it is, a list of field errors as `body.model: Field required; …`. */
function detailWords(detail: unknown): string | undefined {
  if (typeof detail === "string") return detail === "" ? undefined : detail;
  if (!Array.isArray(detail)) return undefined;
  const words = detail.flatMap((item: unknown) => {
    const { loc, msg } = record(item) ?? {};
    if (typeof msg !== "string") return [];
    return [Array.isArray(loc) && loc.length > 0 ? `${loc.join(".")}: ${msg}` : msg];
  });
  return words.length > 0 ? words.join("; ") : undefined;
}

/**
 * The `{ error }` body the SDK reads for a failed response's JSON `text`;
 * undefined where the body already is one, or holds no error's words.
 */
function readableError(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(body)) {
    const first: unknown = body[0];
    return record(first) !== undefined && "error" in (first as object) ? first : undefined;
  }
  const b = record(body);
  if (b === undefined) return undefined;
  // (the error as a string, LM Studio's and text-generation-inference's: the SDK would show it quoted, as JSON)
  if (typeof b.error === "string" && b.error !== "")
    return { error: { message: b.error, ...(typeof b.error_type === "string" ? { type: b.error_type } : {}) } };
  if (b.error != null) return undefined;
  if (typeof b.message === "string" && b.message !== "") {
    // (vLLM's `object: "error"` is no part of the error; its type and code are)
    const { object: _object, ...error } = b;
    return { error };
  }
  const words = detailWords(b.detail);
  return words === undefined ? undefined : { error: { message: words } };
}

/**
 * `fetch` (the global one, looked up at each call) with a failed response's
 * JSON body given as the `{ error }` the SDK reads, where it held its error
 * elsewhere (see above); every other response is passed on untouched, its
 * body unread.
 *
 * @example
 * new OpenAI({ apiKey, fetch: withErrorBodiesRead() });
 */
export function withErrorBodiesRead(inner?: Fetch): Fetch {
  return async (input, init) => {
    const response = await (inner ?? globalThis.fetch)(input, init);
    if (response.ok || !/json/i.test(response.headers.get("content-type") ?? "")) return response;
    const text = await response.text();
    const error = readableError(text);
    const headers = new Headers(response.headers);
    // the body is given anew (decoded, maybe shorter): its old length and encoding no longer hold
    headers.delete("content-length");
    headers.delete("content-encoding");
    const init2 = { status: response.status, statusText: response.statusText, headers };
    return new Response(error === undefined ? text : JSON.stringify(error), init2);
  };
}
