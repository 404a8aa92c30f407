/**
 * An error body the `openai` SDK can read. Gemini's OpenAI-compatible API
 * answers a failed request with a JSON list holding the error
 * (`[{ "error": { "code": 400, "message": …, "status": "INVALID_ARGUMENT" } }]`);
 * the SDK looks for the error under the body's `error` key only, so a
 * list's is dropped and the caller is told "400 status code (no body)":
 * the provider's own words (a schema it refuses, a missing thought
 * signature) are lost. The SDK keeps nothing of the body, so it is mended
 * as it arrives, in the fetch our own client is made with.
 */

/** A fetch as the SDK calls one. */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The error a list body holds: its first item, when that is an `{ error }`. */
function listedError(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const first: unknown = Array.isArray(body) ? body[0] : undefined;
  return typeof first === "object" && first !== null && "error" in first ? first : undefined;
}

/**
 * `fetch` (the global one, looked up at each call) with a failed response
 * whose JSON body is a list holding an `{ error }` given as that item; every
 * other response is passed on untouched, its body unread.
 *
 * @example
 * new OpenAI({ apiKey, fetch: withListedErrorsRead() });
 */
export function withListedErrorsRead(inner?: Fetch): Fetch {
  return async (input, init) => {
    const response = await (inner ?? globalThis.fetch)(input, init);
    if (response.ok || !/json/i.test(response.headers.get("content-type") ?? "")) return response;
    const text = await response.text();
    const error = listedError(text);
    const headers = new Headers(response.headers);
    // the body is given anew (decoded, maybe shorter): its old length and encoding no longer hold
    headers.delete("content-length");
    headers.delete("content-encoding");
    const init2 = { status: response.status, statusText: response.statusText, headers };
    return new Response(error === undefined ? text : JSON.stringify(error), init2);
  };
}
