/**
 * How a request that failed is told: whether it may have reached the server, whether its connection was lost
 * or never made, whether the server refused it unread (an HTTP 4xx, its OAuth token), or the client has no
 * connection; each as a FunctaiError with a stable code, saying what to fix.
 */
import { FunctaiError, describeError } from "../../src/errors.js";
import { REQUEST_TIMEOUT, serverAnswers, transportOf } from "./request.js";
import type { McpClient } from "./types.js";
import { CONNECTION_CLOSED } from "./watch.js";

/**
 * Whether a call that failed may have reached the server: all but an error
 * the server answered with (the SDK's `McpError`, save its own for a
 * connection that closed or a request that timed out) and a client that was
 * not connected (nothing was sent). Over Streamable HTTP a server that dies
 * mid-call fails the POST that carried it with the transport's own error
 * ("fetch failed"), not the SDK's "connection closed": the server may have
 * acted all the same. (One it answered with a result that cannot be read is
 * told by its `ResultReader`.)
 */
export const outcomeUnknown = (e: unknown): boolean => {
  if (notConnected(e)) return false;
  const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
  // the server's own answer with the SDK's codes: -32000 is JSON-RPC's first code for a server's own errors
  // (written by servers for any failure: a tool error), a -32001 says the server's work timed out (it may have acted)
  if (serverAnswers.has(e as object)) return code === REQUEST_TIMEOUT;
  if (name === "McpError" && typeof code === "number") return code === CONNECTION_CLOSED || code === REQUEST_TIMEOUT;
  return true;
};

/** How the SDK's `StreamableHTTPError` for an HTTP error status answering a POST begins its message. */
const POST_REFUSED = "Streamable HTTP error: Error POSTing to endpoint";

/**
 * How the SDK's `StreamableHTTPError` begins its message for a POST refused again (401, or 403 for its scope)
 * after its OAuth provider authorized anew: "Server returned 401 after successful authentication", "Server
 * returned 403 after trying upscoping".
 */
const REFUSED_AFTER_AUTH = "Streamable HTTP error: Server returned 40";

/** The SDK's errors of its OAuth client (`UnauthorizedError`, `OAuthError`), when it has them. */
export interface AuthErrors {
  unauthorized?: unknown;
  oauth?: unknown;
}

let authErrors: Promise<AuthErrors> | undefined;

/**
 * The SDK's OAuth errors, loaded the first time a call fails (a client with no OAuth never needs them); an SDK
 * without them leaves them out.
 */
export function loadAuthErrors(): Promise<AuthErrors> {
  authErrors ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/auth.js").then((m) => m.UnauthorizedError as unknown).catch(() => undefined),
    import("@modelcontextprotocol/sdk/server/auth/errors.js").then((m) => m.OAuthError as unknown).catch(() => undefined),
  ]).then(([unauthorized, oauth]) => ({ unauthorized, oauth }));
  return authErrors;
}

/**
 * Whether `e` is the SDK's OAuth client giving up on a call refused for its token: its transport throws these
 * only while answering a 401 or 403 to the POST that carried the call, before the server took it. Told by the
 * SDK's classes (the same copy the client's transport was built with), else by the class's own name.
 */
function authRefusal(e: unknown, auth: AuthErrors | undefined): boolean {
  if (!(e instanceof Error)) return false;
  const is = (c: unknown) => typeof c === "function" && e instanceof (c as new () => Error);
  if (is(auth?.unauthorized) || is(auth?.oauth)) return true;
  return e.constructor?.name === "UnauthorizedError";
}

/**
 * The codes of a connection that was never made (Node's and undici's): refused, no such host, no route, or a
 * connect that timed out. A request that fails so sent nothing, to anyone: the tool did not run.
 */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * The codes of a connection lost once made (Node's and undici's): reset, a broken pipe, a socket closed or failing
 * under a request (an HTTP server that died mid-answer: fetch's "fetch failed" or "terminated").
 */
const LOST = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/**
 * Whether a call failed for its connection, lost while it waited: the SDK's own "Connection closed" (not a server's
 * answer with its code), or a socket error of its HTTP transport (see {@link LOST}) in `e` or its causes.
 */
export function connectionLost(e: unknown): boolean {
  const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
  if (name === "McpError") return code === CONNECTION_CLOSED && !serverAnswers.has(e as object);
  return causes(e).some((c) => {
    const lost = (c as { code?: unknown }).code;
    return typeof lost === "string" && LOST.has(lost);
  });
}

/** The error and its causes (a few deep: fetch's "fetch failed" TypeError carries the socket's error as its cause). */
function causes(e: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = e; at !== null && typeof at === "object" && chain.length < 4 && !chain.includes(at); at = (at as { cause?: unknown }).cause)
    chain.push(at);
  return chain;
}

/** The code of a connection never made (see {@link NOT_CONNECTED}) in `e` or its causes, else `undefined`. */
function neverConnected(e: unknown): string | undefined {
  for (const c of causes(e)) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && NOT_CONNECTED.has(code)) return code;
  }
  return undefined;
}

/**
 * The SDK's OAuth client module, as a stack frame names its file (`…/sdk/dist/esm/client/auth.js`, or cjs).
 * Its `auth()` is what the Streamable HTTP transport runs after the MCP server answered a POST 401 or 403, before
 * it sends that POST again: an error thrown from inside it (its token endpoint down, its socket reset, its
 * metadata unreadable) failed while the call was held back, unsent.
 */
const SDK_AUTH_FRAME = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](?:esm|cjs)[\\/]client[\\/]auth\.js:/;

/**
 * Whether `e` was thrown from inside the SDK's OAuth flow (see {@link SDK_AUTH_FRAME}), told by its stack's frames
 * (an error of fetch carries its callers' async frames). A stack that does not say (a bundle that renamed the
 * SDK's files, stacks turned off) is not read as one: the call may have run, as before.
 */
function inSdkAuth(e: unknown): boolean {
  return causes(e).some((c) => {
    const stack = (c as { stack?: unknown }).stack;
    return typeof stack === "string" && SDK_AUTH_FRAME.test(stack);
  });
}

/**
 * A call the server refused before running it, as a FunctaiError, else `undefined`: an HTTP 4xx answer to the
 * POST that carried it over Streamable HTTP (the SDK's `StreamableHTTPError`, its status as `code`, told by its
 * message, whatever its class is called), such as
 * the SDK's server answers for a session it does not know (400 "Server not initialized", 404 "Session not
 * found": it restarted), before any handler runs. A 5xx or 408, or a POST that failed with no answer, may have run.
 */
export function refusedUnread(name: string, e: unknown, auth: AuthErrors | undefined): FunctaiError | undefined {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  // the transport's OAuth provider, answering a 401 or 403 to the POST, could not get a token the server takes:
  // a person must authorize (UnauthorizedError), or the authorization server refused (an OAuthError)
  if (authRefusal(e, auth))
    return new FunctaiError(
      "remote-auth",
      `the MCP server refused the call of ${name} before running it: it was not authorized (${describeError(e)}), and the tool did not run; authorize the client's OAuth provider again`,
      { cause: e },
    );
  // the server answered the POST 401 or 403 and the transport's OAuth provider, getting a new token, failed: its
  // authorization server is down, reset the connection, or answered with what is not a token. The POST is sent
  // again only after a token is got: the call never reached the MCP server
  if (inSdkAuth(e))
    return new FunctaiError(
      "remote-auth",
      `the call of ${name} was not sent: the MCP server refused its OAuth token, and a new one could not be got from the OAuth authorization server (${describeError(e)}${neverConnected(e) ? `: ${neverConnected(e)}` : ""}), so the tool did not run; try again once the authorization server answers`,
      { cause: e },
    );
  // no connection could be made (refused, no such host): nothing was sent to anyone, a changing call's included
  const unconnected = neverConnected(e);
  if (unconnected !== undefined)
    return new FunctaiError(
      "remote-closed",
      `the call of ${name} was not sent: no connection to the MCP server could be made (${describeError(e)}: ${unconnected}), so the tool did not run`,
      { cause: e },
    );
  // told by what the SDK sets on it (its message, its numeric status), not by its class's name, which a bundler
  // that renames classes changes; its refusals after authorizing again say so in their own words
  const http =
    e instanceof Error &&
    typeof message === "string" &&
    (message.startsWith(POST_REFUSED) || ((code === 401 || code === 403) && message.startsWith(REFUSED_AFTER_AUTH)));
  // the old SSE transport's refusal is a plain Error (no class or code of its own), its status only in its words
  const plain = e instanceof Error && Object.getPrototypeOf(e) === Error.prototype && code === undefined;
  const sse = plain && typeof message === "string" ? SSE_POST_REFUSED.exec(message) : null;
  const status = sse !== null ? Number(sse[1]) : http ? code : undefined;
  const redirect = unfollowedRedirect(e, status);
  if (redirect !== undefined)
    return new FunctaiError(
      "remote-closed",
      `the MCP server answered the call of ${name} with a redirect ${redirect}, before running it: it did not run; ${REDIRECT_FIX}`,
      { cause: e },
    );
  // (408, "request timeout", is written by some gateways for an upstream that timed out while running it)
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 499 || status === 408) return undefined;
  const kind =
    status === 401 || status === 403
      ? "remote-auth"
      : status === 429
        ? "remote-rate-limit"
        : status === 400 || status === 404
          ? "remote-closed"
          : "remote-protocol";
  return new FunctaiError(
    kind,
    `the MCP server refused the call of ${name} before running it (HTTP ${status}): ${String(message)}; it did not run${REFUSAL_FIX[kind] ?? ""}`,
    { cause: e },
  );
}

/** How the SDK's SSE transport (the old one) begins its Error for an HTTP error status answering a POST, its status captured. */
const SSE_POST_REFUSED = /^Error POSTing to endpoint \(HTTP (\d{1,3})\)/;

/**
 * What the SDK says of a redirect a browser's fetch answered opaquely (`redirect: "manual"`: status 0, no Location),
 * which it did not follow.
 */
const OPAQUE_REDIRECT = "Redirect not followed: this runtime does not expose the redirect target";

/** fetch's words (undici's, the cause of its "fetch failed") for a redirect it did not follow: past its 20, or under `redirect: "error"`. */
const FETCH_REDIRECT_FAILURES = new Set(["redirect count exceeded", "unexpected redirect"]);

/**
 * How a request whose POST's last answer was a redirect not followed is said (see {@link refusedUnread}), else
 * `undefined`: the SDK's error for a 3xx status (`status`, read from it: a redirect it would not follow, to another
 * origin or changing the method, past its 5, without Location, or any under `requestInit.redirect: "manual"`), or for
 * a browser's opaque redirect; or fetch's own "fetch failed" for one it did not follow (`redirectPolicy: "follow"`).
 * Every answer the POST had was a redirect: no MCP server's handler took it.
 */
function unfollowedRedirect(e: unknown, status: unknown): string | undefined {
  const message = (e as { message?: unknown } | null)?.message;
  if (typeof status === "number" && status >= 300 && status <= 399) return `(HTTP ${status}) that was not followed (${String(message)})`;
  if (status === 0 && typeof message === "string" && message.includes(OPAQUE_REDIRECT)) return `that was not followed (${message})`;
  if (!(e instanceof TypeError)) return undefined;
  const cause = causes(e)
    .slice(1)
    .map((c) => (c as { message?: unknown }).message)
    .find((m): m is string => typeof m === "string" && FETCH_REDIRECT_FAILURES.has(m));
  return cause === undefined ? undefined : `fetch did not follow (${cause})`;
}

/** What to do of a call answered with a redirect not followed (see {@link unfollowedRedirect}). */
const REDIRECT_FIX =
  "the MCP server's endpoint is not at the URL the client was connected to: connect the client to its endpoint's URL (a new transport), or, if the redirect is to be trusted, give the transport redirectPolicy: \"follow\"";

/** What to fix, said after a refusal of a POST by its kind (see {@link refusedUnread}). */
const REFUSAL_FIX: Partial<Record<string, string>> = {
  "remote-auth": ": authorize the client (its transport's authProvider, or the headers the server asks for in its requestInit)",
  "remote-rate-limit": ": the server takes no more requests for now; try again later",
  "remote-closed":
    ": the server no longer knows the client's session (it restarted, or closed it), or its endpoint is not there; connect the client again (client.connect with a new transport)",
};

/** Whether `e` is the SDK's refusal of a request on a client with no connection (never made, or closed: its server ended): nothing was sent. */
const notConnected = (e: unknown): boolean => e instanceof Error && e.message === "Not connected";

/** The name the client's server gave when it connected, when it did. */
function serverName(client: McpClient): string | undefined {
  try {
    const named = (client as { getServerVersion?: () => { name?: unknown } | undefined }).getServerVersion?.()?.name;
    return typeof named === "string" && named !== "" ? named : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What is said of a client with no connection (see {@link notConnected}): which server (by the name it gave when
 * it connected, when it did), and what to do.
 */
function closedConnection(client: McpClient): string {
  const named = serverName(client);
  const server = named !== undefined ? `the MCP server ${JSON.stringify(named)}` : "the MCP server";
  return `Not connected to ${server}: its connection is closed (the server ended, or the client was closed), and nothing was sent; connect the client again (client.connect(transport)) before using its tools`;
}

/**
 * A request refused for want of a connection (see {@link notConnected}) or failing as a Client's method called
 * on no Client (a TypeError naming `this` or one of its private fields), as a FunctaiError: `what` was not done,
 * and nothing was sent. A client with no `transport` (a wrapper of the SDK's Client) is said to be one, whose
 * methods may not be bound to its Client (copied off it, they run on the wrapper, which has no connection);
 * else `undefined`, for a TypeError on the SDK's own Client (see {@link closedConnection} for its closed connection).
 */
export function notConnectedError(client: McpClient, e: unknown, what: string): FunctaiError | undefined {
  const wrapper = !("transport" in client);
  const unbound = e instanceof TypeError && /\bthis\b|\(reading '_/.test(e.message);
  if (!notConnected(e) && !(wrapper && unbound)) return undefined;
  if (!wrapper) return new FunctaiError("remote-closed", `${closedConnection(client)} (${what})`, { cause: e });
  const bind =
    "give mcpTools the connected Client itself, or a wrapper whose listTools, callTool and request are bound to it (client.request.bind(client))";
  if (unbound)
    return new FunctaiError(
      "settings-invalid",
      `the client given to mcpTools is not the SDK's Client (it has no transport), and its methods failed as if called on no Client (${describeError(e)}): ${bind}; nothing was sent (${what})`,
      { cause: e },
    );
  return new FunctaiError(
    "remote-closed",
    `Not connected to the MCP server (the client given to mcpTools is not the SDK's Client: it has no transport): its Client's connection is closed, or was never made, or the wrapper's methods are not bound to it (they ran on the wrapper, which has no connection); nothing was sent (${what}): connect the Client, and ${bind}`,
    { cause: e },
  );
}

/**
 * Refuses the SDK's Client when it was never connected (it has no transport, and no server said its name): the
 * caller is to connect it before mcpTools. One whose connection closed after (its server ended) is told when its
 * tools are listed (see {@link notConnectedError}).
 */
export function refuseUnconnected(client: McpClient): void {
  if (!("transport" in client) || transportOf(client) !== undefined || typeof (client as { connect?: unknown }).connect !== "function") return;
  if (serverName(client) !== undefined) return;
  throw new FunctaiError(
    "settings-invalid",
    "mcpTools takes a connected Client of @modelcontextprotocol/sdk, and this one is not connected: connect it first (await client.connect(transport))",
  );
}
