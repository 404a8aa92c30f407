/**
 * What the page says, as sentences a person reads: a turn that waits is not
 * an error, and an error says what happened and what to do, never an API
 * code and a stack of words.
 */

/** A turn that waits for a person: a neutral message, in every tab. */
export const WAITING = "Waiting for a person: answer here or in another tab.";

/** A turn stopped midway (its tab closed): a neutral message too. */
export const INTERRUPTED = "A turn stopped midway (its tab closed): say under Turns whether its tools ran, then it goes on here.";

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

const messageOf = (e: unknown): string => {
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(e);
};

/** A message as a sentence: a capital first letter and a full stop. */
const asSentence = (text: string): string => {
  const trimmed = text.trim().replace(/^[a-z][\w-]*(?:\/[\w-]+)*: /, ""); // "openai: …", "desk/refund: …"
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?)]$/.test(first) ? first : `${first}.`;
};

/**
 * Why a page could not reach a model's server. From another origin, the
 * usual cause is CORS: the browser asks the server first, and a server that
 * does not allow this page's origin is reported as a failed fetch.
 */
export function unreachable(endpoint: string, origin: string): string {
  let other = true;
  try {
    other = new URL(endpoint).origin !== origin;
  } catch {
    return `The model's base URL (${endpoint}) is not a URL: give one such as http://127.0.0.1:11434/v1.`;
  }
  const cors = other
    ? ` If it is running, it may not allow requests from this page (${origin}): a browser needs the server's permission for another origin (CORS).` +
      ` For Ollama, start it with OLLAMA_ORIGINS=${origin} ollama serve; for vLLM, add --allowed-origins '["${origin}"]'.`
    : "";
  return `Could not reach the model at ${endpoint}.${cors}`;
}

/**
 * An error (or a turn's saved error, `{ code, message }`) as a sentence.
 * `endpoint` is the model's base URL when a real model is used.
 */
export function sentence(e: unknown, endpoint: string | null, origin: string): string {
  const code = codeOf(e);
  switch (code) {
    case "turn-waiting":
      return WAITING;
    case "provider-network":
      return endpoint ? unreachable(endpoint, origin) : asSentence(messageOf(e));
    case "provider-auth":
      return "The model's server refused the API key: check the key under “Use a real model”.";
    case "provider-rate-limit":
    case "provider-overloaded":
      return "The model's server is busy (rate limit): try again in a moment.";
    case "approval-answered":
      return "Someone already answered this, in another tab.";
    case "conversation-busy":
      return "This conversation has a turn waiting for a person: answer it under Turns first.";
    case "turn-claimed":
      return "Another tab is going on with this turn right now.";
    case "conversation-id":
      return `That conversation name cannot be used. ${asSentence(messageOf(e))}`;
  }
  // a fetch the browser refused (no code: the SDK's own error reached us)
  if (endpoint && /fetch|connection error|network/i.test(messageOf(e))) return unreachable(endpoint, origin);
  return asSentence(messageOf(e));
}
