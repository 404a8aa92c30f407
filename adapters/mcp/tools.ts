import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { NeedsPerson, abortError } from "../../src/engine/runtime.js";
import { untilAborted } from "../../src/runtime/abort.js";
import { notJson } from "../../src/engine/tool-boundary.js";
import { FunctaiError, describeError, describeValue } from "../../src/errors.js";
import type { Effects } from "../../src/records/types.js";
import { checkEffects, checkName } from "../../src/tools/tool.js";
import { INPUT_NAME } from "../../src/tools/name.js";
import type { ToolLike } from "../../src/tools/types.js";
import { loadResultReader, outputOf, outputProblem, unreadable, userParts, type McpCallResult, type ResultReader } from "./result.js";
import { loadListingReader, type ListedPage, type ListingReader } from "./listing.js";
import { inputSchemaFrom, loadCheckMaker, type CheckMaker, type JsonCheck } from "./validate.js";
import {
  CONNECTION_CLOSED,
  OversizedMessage,
  UnreadableMessage,
  onToolsChanged,
  strayKeysSaid,
  untilUnreadable,
  type ToolsWatcher,
} from "./watch.js";
import { isRecord, namedKeys, unknownKeys } from "../../src/runtime/values.js";
import { OversizedBody, boundWire, watchWire, type PostedRequest } from "./wire.js";

/**
 * A connected MCP client (`@modelcontextprotocol/sdk`'s `Client`): only these methods are used. A call is
 * sent with `request` when the client has it (the SDK's `Client` does): `callTool` checks a tool's output
 * with one validator for every tool, which mixes up output schemas that share an `$id`, and functai checks
 * each tool's output against its own schema. Without `request`, calls go through `callTool`.
 *
 * @example
 * const client: McpClient = new Client({ name: "desk", version: "1.0.0" }); // connected before use
 * const tools = await mcpTools(client);
 */
export type McpClient = Pick<Client, "listTools" | "callTool"> & Partial<Pick<Client, "request">>;

/**
 * One tool as the server lists it.
 *
 * @example
 * const onlyReads = (info: McpToolInfo) => info.annotations?.readOnlyHint === true;
 * const tools = await mcpTools(client, { include: onlyReads });
 */
export type McpToolInfo = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

/** What one `tools/call` sends. */
type CallParams = Parameters<Client["callTool"]>[0];

/**
 * Which of a server's tools `mcpTools` takes (`include`), and their effects
 * where the server's annotations say otherwise or nothing (`effects`).
 *
 * @example
 * const options: McpToolsOptions = { include: ["lookup_order", "refund"], effects: { lookup_order: "reads" } };
 * const tools = await mcpTools(client, options);
 */
export interface McpToolsOptions {
  /** Effects by tool name, over what the server's annotations say. */
  effects?: Record<string, Effects>;
  /** Only these tools: names, or a test of each tool the server lists. */
  include?: readonly string[] | ((tool: McpToolInfo) => boolean);
  /**
   * How long each request to the server (a page of the listing, a call) waits for its answer, in ms: 1 to
   * 2,147,483,647 (the SDK's own default: 60,000). A call past it is cancelled on the server: a changing
   * tool's call may have run (its turn stops for a person), a reading one's is a tool error.
   */
  timeout?: number;
}

/**
 * A tool made from an MCP server's tool.
 *
 * @example
 * const [first]: McpTool[] = await mcpTools(client);
 * console.log(first?.name, first?.toolEffects, first?.info.annotations);
 * const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
 */
export interface McpTool extends ToolLike {
  readonly kind: "mcp";
  readonly parameters: Record<string, unknown>;
  /** What the server said of it (annotations included). */
  readonly info: McpToolInfo;
}

/**
 * The effects an MCP tool's annotations say: `readOnlyHint: true` reads;
 * anything else (annotations missing included) changes, as an undeclared tool does.
 *
 * @example
 * effectsOf({ name: "find_order", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }); // "reads"
 * effectsOf({ name: "refund", inputSchema: { type: "object" } });                                          // "changes"
 */
export const effectsOf = (info: McpToolInfo): Effects => (info.annotations?.readOnlyHint === true ? "reads" : "changes");

/**
 * The key of a `tools/call` request's `_meta` that carries the call's
 * `ctx.idempotencyKey` (a prefix of functai's own, as MCP asks of `_meta`
 * keys): the same for a call's first run and a person's rerun of it, so a
 * server can perform it once.
 */
const IDEMPOTENCY_KEY = "functai.dev/idempotencyKey";

/** The SDK's code for a request that timed out (`ErrorCode.RequestTimeout`). */
const REQUEST_TIMEOUT = -32001;

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
const outcomeUnknown = (e: unknown): boolean => {
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
interface AuthErrors {
  unauthorized?: unknown;
  oauth?: unknown;
}

let authErrors: Promise<AuthErrors> | undefined;

/**
 * The SDK's OAuth errors, loaded the first time a call fails (a client with no OAuth never needs them); an SDK
 * without them leaves them out.
 */
function loadAuthErrors(): Promise<AuthErrors> {
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
function connectionLost(e: unknown): boolean {
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
function refusedUnread(name: string, e: unknown, auth: AuthErrors | undefined): FunctaiError | undefined {
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
const SSE_POST_REFUSED = /^Error POSTing to endpoint \(HTTP (\d{3})\)/;

/** What to fix, said after a refusal of a POST by its kind (see {@link refusedUnread}). */
const REFUSAL_FIX: Partial<Record<string, string>> = {
  "remote-auth": ": authorize the client (its transport's authProvider, or the headers the server asks for in its requestInit)",
  "remote-rate-limit": ": the server takes no more requests for now; try again later",
  "remote-closed":
    ": the server no longer knows the client's session (it restarted, or closed it), or its endpoint is not there; connect the client again (client.connect with a new transport)",
};

/** McpErrors with the SDK's codes for a closed connection or a timeout that were the server's answer, not the SDK's own (see {@link send}). */
const serverAnswers = new WeakSet<object>();

/** The SDK's timeout of a request when none is given (`DEFAULT_REQUEST_TIMEOUT_MSEC`). */
const SDK_TIMEOUT = 60_000;

/** The transport `client` has now (`undefined`: none, or a client that does not say). */
const transportOf = (client: McpClient): unknown => (client as { transport?: unknown }).transport;

/**
 * Whether `e`, an McpError with the code the SDK gives its own "Connection closed" (-32000) or "Request
 * timed out" (-32001), was the server's answer: the SDK's closed connection leaves the client without the
 * transport the request was sent on (`sentOn`; `client.transport`, read while the error is new, is none, or a
 * new one when the client's `onclose` connected it again at once, as the SDK fails the requests waiting after
 * it), and its timeout is the one {@link timed} runs (`timedOut`: its timer fired). A client that does not say
 * its transport is read as closed.
 */
function answeredWithCode(client: McpClient, e: unknown, timedOut: boolean, sentOn: unknown): boolean {
  const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
  if (name !== "McpError" || e === null || typeof e !== "object") return false;
  if (code === CONNECTION_CLOSED) return sentOn !== undefined && transportOf(client) === sentOn;
  if (code === REQUEST_TIMEOUT) return !timedOut;
  return false;
}

/** The options one request is sent with: `signal`, and the SDK's own timer set past reach ({@link timed} times it). */
interface Sending {
  signal: AbortSignal;
  timeout: number;
}

/**
 * What a request's timer aborts it with: the SDK, cancelling it, fails it with its McpError -32001 and these words
 * ("MCP error -32001: Request timed out", as its own timer says it).
 */
const TIMED_OUT = "Request timed out";

/**
 * Runs one request (`request`, given what to send it with) timed here, not by the SDK: past `timeout` ms (the
 * SDK's default when none) its signal aborts, and the SDK cancels it as its own timer would (notifications/cancelled
 * to the server, McpError -32001). A -32001 is then the server's answer exactly when this timer did not fire (told
 * by the clock before: a timer that fired a ms early by it was read as the server's answer, a server's -32001 that
 * came a ms after the timeout as the SDK's own): marked so while the error is new (see {@link answeredWithCode}).
 * `signal` aborted (the turn stopped, an answer cut off or unreadable) marks nothing.
 */
async function timed<T>(client: McpClient, signal: AbortSignal, timeout: number | undefined, request: (sending: Sending) => Promise<T>): Promise<T> {
  const sentOn = transportOf(client);
  const timer = new AbortController();
  const fire = setTimeout(() => timer.abort(TIMED_OUT), timeout ?? SDK_TIMEOUT);
  try {
    return await request({ signal: AbortSignal.any([signal, timer.signal]), timeout: MAX_TIMEOUT });
  } catch (e) {
    if (!signal.aborted && answeredWithCode(client, e, timer.signal.aborted, sentOn)) serverAnswers.add(e as object);
    throw e;
  } finally {
    clearTimeout(fire);
  }
}

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
function notConnectedError(client: McpClient, e: unknown, what: string): FunctaiError | undefined {
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
function refuseUnconnected(client: McpClient): void {
  if (!("transport" in client) || transportOf(client) !== undefined || typeof (client as { connect?: unknown }).connect !== "function") return;
  if (serverName(client) !== undefined) return;
  throw new FunctaiError(
    "settings-invalid",
    "mcpTools takes a connected Client of @modelcontextprotocol/sdk, and this one is not connected: connect it first (await client.connect(transport))",
  );
}

/**
 * A listing that failed, as a FunctaiError: the connection is gone (closed,
 * or never made), or the server answered with an error or with a listing
 * the SDK cannot read (said by path, as {@link unreadable} says it, not as
 * the SDK's ZodError dump).
 */
function listingFailed(client: McpClient, e: unknown, auth?: AuthErrors): FunctaiError {
  // refused for its OAuth token (or an HTTP 4xx to its POST): said with the refusal's own code
  const refused = refusedUnread("tools/list", e, auth);
  if (refused !== undefined)
    return new FunctaiError(refused.code, `the MCP server's tools could not be listed: ${refused.message}`, { cause: e });
  const unconnectedError = notConnectedError(client, e, "the MCP server's tools could not be listed");
  if (unconnectedError !== undefined) return unconnectedError;
  if (e instanceof HeldBack)
    return new FunctaiError("remote-auth", `the MCP server's tools could not be listed: ${heldBackError("tools/list", e).message}`, {
      cause: e.cause,
    });
  if (e instanceof OversizedBody)
    return new FunctaiError("remote-protocol", `the MCP server's tools could not be listed: ${e.message}`, { cause: e });
  if (e instanceof OversizedMessage)
    return new FunctaiError("remote-closed", `the MCP server's tools could not be listed: ${e.message}`, { cause: e.cause });
  if (e instanceof UnreadableMessage)
    return new FunctaiError("remote-protocol", `the MCP server's tools could not be listed: its answer could not be read (${e.message})`, {
      cause: e.cause,
    });
  // (the server's own answer with the SDK's code for a closed connection is an error it answered with)
  const closed = (e as { code?: unknown } | null)?.code === CONNECTION_CLOSED && !serverAnswers.has(e as object);
  return new FunctaiError(closed ? "remote-closed" : "remote-protocol", `the MCP server's tools could not be listed: ${unreadable(e)}`, {
    cause: e,
  });
}

/**
 * The most pages of tools/list followed. A server that never stops giving a
 * new cursor (an offset it goes on adding to) would be asked forever, what
 * it lists piling up; far past any real listing (a model request takes some
 * 128 tools), it is refused instead.
 */
const MAX_PAGES = 1_000;

/**
 * The most tools a listing keeps. A server whose pages never end, each full (an offset it goes on adding to, a
 * page of thousands), had millions of tools read, checked and held before {@link MAX_PAGES} refused it; far past
 * any real server (a model request takes some 128 tools, and `include` picks from what is listed), it is refused
 * once past this.
 */
const MAX_LISTED_TOOLS = 10_000;

/**
 * One page of the server's tools. Through the client's `request` when it has one, read by `reader` (see
 * {@link ListingReader}: a `nextCursor: null` is the last page, and a tool the SDK cannot read is refused only
 * when taken); the SDK's `listTools` refused both whole.
 */
async function listPage(client: McpClient, cursor: string | undefined, reader: ListingReader, timeout: number | undefined): Promise<ListedPage> {
  const params = cursor === undefined ? {} : { cursor };
  // a page answered with a message the transport cannot read fails at once, not at the timeout (see untilUnreadable)
  const carries = (m: PostedRequest) => m.method === "tools/list" && (m.params as { cursor?: unknown } | undefined)?.cursor === cursor;
  return onWire(client, carries, undefined, (outer) =>
    untilUnreadable(client, outer, (signal) =>
      timed(client, signal, timeout, async (options) => {
        if (client.request === undefined) return { ...(await client.listTools(params, options)), unreadable: new Map() };
        return reader.page(await client.request({ method: "tools/list", params }, reader.schema, options));
      }),
    ),
  );
}

/** Every page of the server's tools, to the first with no cursor (or `""`). A cursor given twice means the pages go round in a circle, and pages past {@link MAX_PAGES} that they never end: refused, not followed forever. */
async function listAll(client: McpClient, reader: ListingReader, timeout: number | undefined): Promise<Omit<ListedPage, "nextCursor">> {
  const tools: McpToolInfo[] = [];
  const unreadableTools = new Map<McpToolInfo, string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    let page: ListedPage;
    try {
      page = await listPage(client, cursor, reader, timeout);
    } catch (e) {
      if (e instanceof FunctaiError) throw e;
      throw listingFailed(client, e, e instanceof Error ? await loadAuthErrors() : undefined);
    }
    if (tools.length + page.tools.length > MAX_LISTED_TOOLS)
      throw new FunctaiError(
        "remote-protocol",
        `the MCP server's tool list is too long: it lists more than ${MAX_LISTED_TOOLS.toLocaleString("en-US")} tools (${(tools.length + page.tools.length).toLocaleString("en-US")} in its first ${cursors.size + 1} pages${page.nextCursor ? ", and a cursor to another" : ""})`,
      );
    for (const t of page.tools) tools.push(t);
    for (const [tool, why] of page.unreadable) unreadableTools.set(tool, why);
    // "" is the last page too: written by servers whose cursor is a string left empty, and no cursor a server can
    // be asked with, which it cannot tell from the first page's (asked again, that page came back, "" with it)
    cursor = page.nextCursor === "" ? undefined : page.nextCursor;
    if (cursor !== undefined && cursors.has(cursor))
      throw new FunctaiError(
        "remote-protocol",
        `the MCP server's tool list goes round in a circle: it gave the cursor ${JSON.stringify(cursor)} twice`,
      );
    if (cursor !== undefined) cursors.add(cursor);
    if (cursor !== undefined && cursors.size >= MAX_PAGES)
      throw new FunctaiError(
        "remote-protocol",
        `the MCP server's tool list does not end: it gave ${MAX_PAGES} pages (${tools.length} tools) and a cursor to another`,
      );
  } while (cursor !== undefined);
  return { tools, unreadable: unreadableTools };
}

/** Taken tools the SDK cannot read (see {@link ListingReader}): refused, saying where each breaks MCP and how to leave it out. */
function refuseUnreadable(taken: readonly McpToolInfo[], unreadableTools: ReadonlyMap<McpToolInfo, string>): void {
  const problems = taken.flatMap((t) => unreadableTools.get(t) ?? []);
  if (problems.length > 0)
    throw new FunctaiError(
      "remote-protocol",
      `the MCP server's tools could not be listed: ${problems.join("; ")}; leave ${problems.length === 1 ? "it" : "them"} out with mcpTools(client, { include })`,
    );
}

/** What mcpTools options hold: anything else is read by nothing. */
const OPTION_KEYS = ["include", "effects", "timeout"] as const;

/** The longest timer Node keeps: a longer one fires at once (with a warning), which would time every call out. */
const MAX_TIMEOUT = 2_147_483_647;

/**
 * Options of the wrong type, refused before the server is asked (an `include` of one string was matched as a
 * substring of it), and options it does not know (a misspelt `include` took every tool).
 */
function checkOptions(options: unknown): asserts options is McpToolsOptions {
  if (!isRecord(options))
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools options must be an object { include?, effects?, timeout? }, not ${describeValue(options, 80)}`,
    );
  const odd = unknownKeys(
    Object.keys(options).filter((k) => options[k] !== undefined),
    OPTION_KEYS,
  );
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools: ${namedKeys(odd, "is not an option", "are not options")}; its options are ${OPTION_KEYS.join(", ")}`,
    );
  const { include, effects, timeout } = options;
  if (timeout !== undefined && !(typeof timeout === "number" && Number.isInteger(timeout) && timeout >= 1 && timeout <= MAX_TIMEOUT))
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools timeout must be a whole number of ms from 1 to ${MAX_TIMEOUT.toLocaleString("en-US")}, not ${describeValue(timeout, 80)}`,
    );
  if (include !== undefined && typeof include !== "function" && !(Array.isArray(include) && include.every((n) => typeof n === "string")))
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools include must be a list of tool names or a test of each tool, not ${describeValue(include, 80)}`,
    );
  if (effects !== undefined && !isRecord(effects))
    throw new FunctaiError("settings-invalid", `mcpTools effects must be an object of effects by tool name, not ${describeValue(effects, 80)}`);
  for (const e of Object.values(effects ?? {})) checkEffects(e);
}

/**
 * What the caller's `include` test says of one tool. A test written `async`
 * answers with a promise, which is truthy: it would take every tool, those it
 * leaves out included, so it is refused.
 */
function included(include: (tool: McpToolInfo) => boolean, t: McpToolInfo): boolean {
  let answer: unknown;
  try {
    answer = include(t);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `mcpTools include failed on the tool ${JSON.stringify(t.name)}: ${describeError(e)}`, {
      cause: e,
    });
  }
  if (typeof (answer as { then?: unknown } | null)?.then === "function") {
    // its rejection, if it rejects, is this refusal's to tell, not an unhandled one
    Promise.resolve(answer).catch(() => {});
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools include answered a promise for the tool ${JSON.stringify(t.name)}: it must answer at once, true or false (look up what it needs before calling mcpTools)`,
    );
  }
  return Boolean(answer);
}

function chosen(all: readonly McpToolInfo[], options: McpToolsOptions): McpToolInfo[] {
  const { include, effects = {} } = options;
  const listed = new Map<string, number>();
  for (const t of all) listed.set(t.name, (listed.get(t.name) ?? 0) + 1);
  const names = new Set(listed.keys());
  const named = [...(Array.isArray(include) ? include : []), ...Object.keys(effects)];
  const missing = named.filter((n) => !names.has(n));
  if (missing.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `the MCP server has no tool named ${missing.map((n) => JSON.stringify(n)).join(", ")} (it has: ${[...names].join(", ") || "none"})`,
    );
  const takes = (t: McpToolInfo) => (typeof include === "function" ? included(include, t) : include === undefined || include.includes(t.name));
  const taken = all.filter(takes);
  // two tools of one name: the model could not tell them apart, and only one of them would ever be called
  for (const t of taken)
    if (listed.get(t.name)! > 1)
      throw new FunctaiError(
        "remote-protocol",
        `the MCP server lists two tools named ${JSON.stringify(t.name)}; leave them out with mcpTools(client, { include })`,
      );
  return taken;
}

/**
 * Keywords providers refuse at the top of a tool's input schema, whatever it
 * says: Anthropic "oneOf, allOf, or anyOf", OpenAI those and "enum" and
 * "not" (a server's "at least one of these inputs" is often a top-level
 * `anyOf` of `required` lists).
 */
const TOP_LEVEL_REFUSED = ["oneOf", "anyOf", "allOf", "enum", "not"] as const;

/**
 * The tool's name and input schema, when a provider takes them: MCP allows
 * names ("orders.refund"), input names ("order id") and schemas that
 * providers refuse, and a request offering such a tool is refused whole (a
 * 400 at every step). So it is refused here, saying how to leave it out:
 * the rest of the server's tools are still usable.
 */
function offerable(info: McpToolInfo): { name: string; parameters: Record<string, unknown> } {
  const leaveOut = "leave it out with mcpTools(client, { include })";
  let name: string;
  try {
    name = checkName("MCP tool", info.name);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `${(e as Error).message}, as providers require; ${leaveOut}`, { cause: e });
  }
  const parameters: unknown = info.inputSchema;
  if (!isRecord(parameters) || parameters.type !== "object")
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an input schema that is not an object schema ({ type: "object", … }), which providers require; ${leaveOut}`,
    );
  // (a plain tools/call of it is refused by the server, or by the SDK's client for the last page listed only)
  if (info.execution?.taskSupport === "required")
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} runs only as a task (execution.taskSupport: "required"), and functai calls tools with tools/call; ${leaveOut}`,
    );
  const combined = TOP_LEVEL_REFUSED.filter((keyword) => Object.hasOwn(parameters, keyword));
  if (combined.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an input schema with ${combined.join(", ")} at its top level, which providers refuse (only inside its properties); ${leaveOut}`,
    );
  const properties = isRecord(parameters.properties) ? Object.keys(parameters.properties) : [];
  if (properties.includes("__proto__"))
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an input named "__proto__", which a JavaScript object cannot keep as an input (reading it sets the object's prototype: the server would be sent an input without it); ${leaveOut}`,
    );
  const refused = properties.filter((key) => !INPUT_NAME.test(key));
  if (refused.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has inputs named ${refused.map((k) => JSON.stringify(k)).join(", ")}: providers refuse input names other than 1–64 letters, digits, _, . or -; ${leaveOut}`,
    );
  return { name, parameters };
}

/**
 * Sends one `tools/call`. Through the client's `request` when it has one: the SDK's `callTool` adds only
 * its check of the output, made with a validator that hands back the first schema it compiled for an
 * `$id` (two tools whose output schemas share one were checked against one schema; functai checks each
 * tool's own, see {@link outputCheck}), and its refusal of a tool that must run as a task, which
 * {@link offerable} refuses at listing, whatever page it was on.
 */
async function send(client: McpClient, params: CallParams, reader: ResultReader, outer: AbortSignal, timeout: number | undefined): Promise<unknown> {
  const key = (params._meta as Record<string, unknown> | undefined)?.[IDEMPOTENCY_KEY];
  const carries = (m: PostedRequest) => {
    const p = m.params as { name?: unknown; _meta?: Record<string, unknown> } | undefined;
    return m.method === "tools/call" && p?.name === params.name && p?._meta?.[IDEMPOTENCY_KEY] === key;
  };
  // an answer the transport cannot read fails the call at once, not at the timeout (see untilUnreadable)
  return onWire(client, carries, outer, (signal) =>
    untilUnreadable(client, signal, (signal) =>
      timed(client, signal, timeout, (options) =>
        client.request === undefined
          ? client.callTool(params, reader.schema, options)
          : client.request({ method: "tools/call", params }, reader.schema, options),
      ),
    ),
  );
}

/**
 * A request whose wait ended (its timeout) while it was held back: its POST was refused for its OAuth token (401 or
 * 403) and its transport was still getting a new one (the token endpoint not answering), so the MCP server never
 * took it. It is withdrawn: not sent when a token comes. `cause`: the timeout.
 */
class HeldBack extends Error {
  constructor(cause: unknown) {
    super("held back for an OAuth token the OAuth authorization server did not give in time", { cause });
    this.name = "HeldBack";
  }
}

/**
 * Runs one request (`request`, given the signal to send it with) watching the wire under it (see wire.ts): an
 * answer cut off there past its bound fails it at once with the {@link OversizedBody} (the request is cancelled);
 * one that timed out while its POST was held back for a token fails with {@link HeldBack}; either way, a request
 * given up while held back is never sent later. `carries` tells the POSTs carrying it.
 */
async function onWire<T>(
  client: McpClient,
  carries: (message: PostedRequest) => boolean,
  outer: AbortSignal | undefined,
  request: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const cutter = new AbortController();
  let cut: OversizedBody | undefined;
  let strayed: UnreadableMessage | undefined;
  let heldBack = false;
  let last: PostedRequest | undefined;
  const wire = watchWire(client, {
    carries,
    sent: (message) => {
      heldBack = false;
      last = message;
    },
    refused: () => {
      heldBack = true;
    },
    cut: (error) => {
      cut ??= error;
      cutter.abort(error);
    },
    // its answer has keys JSON-RPC does not name: the SDK drops it, and the request would wait out its timeout
    strayKeys: (keys) => {
      strayed ??= new UnreadableMessage(undefined, strayKeysSaid(keys));
      cutter.abort(strayed);
    },
  });
  try {
    return await request(outer === undefined ? cutter.signal : AbortSignal.any([outer, cutter.signal]));
  } catch (e) {
    // given up while its POST waits for a token: never sent when the token comes (nobody waits for its answer)
    if (heldBack && last !== undefined) wire.withdraw(last);
    if (outer?.aborted) throw e;
    if (cut !== undefined) throw cut;
    if (strayed !== undefined) throw strayed;
    const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
    if (heldBack && name === "McpError" && code === REQUEST_TIMEOUT && !serverAnswers.has(e as object)) throw new HeldBack(e);
    throw e;
  } finally {
    wire.stop();
  }
}

/**
 * An answer cut off on the wire (see {@link OversizedBody}): a tool error the model sees, as a result past
 * {@link MAX_RESULT_CHARS} is (see {@link tooLarge}): the server took the call and answered it, so a changing
 * tool's says it ran. A changing tool's call whose message cut is not known to be its answer (a notification sent
 * while it ran, perhaps: the call was then cancelled mid-run) may have run: its turn stops for a person.
 */
function cutOff(name: string, e: OversizedBody, effects: Effects): Error {
  if (effects === "changes" && !e.answer)
    return new NeedsPerson(
      `the MCP tool ${name} may have run: ${e.message}, and it was not known to be its answer (the call was cancelled). Say what it returned, or ask for a rerun.`,
    );
  const sizes = `more than ${e.limit.toLocaleString("en-US")} bytes${e.stream ? " in one message of its answer's stream" : ""}, past what functai reads of an answer (it takes at most ${MAX_RESULT_CHARS.toLocaleString("en-US")} characters of a tool's result)`;
  return new FunctaiError(
    "tool-failed",
    effects === "changes"
      ? `the MCP tool ${name} ran, and its answer was ${sizes}: it was not read, nor kept. It did run: do not call it again to see its result`
      : `the MCP tool ${name}'s answer was ${sizes}: it was not read, nor kept; ask for less, if the tool can give less`,
    { cause: e },
  );
}

/** A call held back for its token until its timeout (see {@link HeldBack}): `remote-auth`, it did not run. */
const heldBackError = (what: string, e: HeldBack): FunctaiError =>
  new FunctaiError(
    "remote-auth",
    `${what} was not sent: the MCP server refused its OAuth token, and the OAuth authorization server gave no new one before the timeout (${describeError(e.cause)}), so the MCP server never took it: it did not run, and it will not be sent when a token comes. Try again once the authorization server answers`,
    { cause: e.cause },
  );

/** The check of a tool's output schema, when it lists one (see {@link outputProblem}). */
function outputCheck(info: McpToolInfo, name: string, makeCheck: CheckMaker): JsonCheck | undefined {
  if (info.outputSchema === undefined) return undefined;
  try {
    return makeCheck(info.outputSchema);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `the MCP tool ${name} has an output schema that cannot be checked: ${describeError(e)}`, { cause: e });
  }
}

/**
 * The most of a tool's result functai takes, in characters (UTF-16 code units, as JavaScript counts a string's
 * length) of what the model would read: its text, its structured content as JSON, or its error's words. Some
 * 250,000 tokens, past the whole context of most models: a larger result is a request no model takes (a provider
 * 400 at every step), and it would be kept whole in the journal's `done` record, read back by every resume.
 * A result past it is a tool error the model sees, `tool-failed`, saying its size and this bound, and nothing of
 * it is kept; a changing tool's error says it ran (its `done` record keeps that: it is never run again on its own).
 */
const MAX_RESULT_CHARS = 1_000_000;

/** A result past {@link MAX_RESULT_CHARS} (`size` characters): what the model is told, and the `done` record keeps. */
function tooLarge(name: string, size: number, effects: Effects): FunctaiError {
  const sizes = `${size.toLocaleString("en-US")} characters, past the ${MAX_RESULT_CHARS.toLocaleString("en-US")} characters functai takes of a tool's result`;
  return new FunctaiError(
    "tool-failed",
    effects === "changes"
      ? `the MCP tool ${name} ran, and its result was ${sizes}: it is not shown, nor kept. It did run: do not call it again to see its result`
      : `the MCP tool ${name}'s result was ${sizes}: it is not shown, nor kept; ask for less, if the tool can give less`,
  );
}

/**
 * What the model is shown of a server's answer to one call (see {@link outputOf}), checked first: an answer
 * with no content, with structured content that breaks the tool's output schema (`checkOutput`) or that the
 * journal cannot keep, cannot be read, and is thrown as `cannotRead` makes it (a changing tool may have acted).
 */
function answerOf(
  name: string,
  result: McpCallResult,
  reader: ResultReader,
  checkOutput: JsonCheck | undefined,
  cannotRead: (why: string, cause?: unknown) => Error,
  effects: Effects,
): unknown {
  // an answer with no content is not a tool's result as MCP says (the SDK would show it as [])
  if (reader.bare()) throw cannotRead("it has no content, which MCP requires of a tool's result");
  // checked here, not left to the client: it checks only the tools of its last listing's last page
  let broken: string | null;
  try {
    broken = checkOutput === undefined ? null : outputProblem(checkOutput, result);
  } catch (e) {
    // the check itself failed on it (a recursive schema over content nested past the stack)
    broken = `its structured content could not be checked against the tool's output schema: ${describeError(e)}`;
  }
  if (broken !== null) throw cannotRead(broken);
  let output: unknown;
  try {
    output = outputOf(name, result);
  } catch (e) {
    // an error's words are shown to the model and kept too: bounded as a result is
    const said = e instanceof FunctaiError ? e.message.length : 0;
    if (said > MAX_RESULT_CHARS) throw tooLarge(name, said, effects);
    throw e;
  }
  if (typeof output === "string") {
    if (output.length > MAX_RESULT_CHARS) throw tooLarge(name, output.length, effects);
    return output;
  }
  // output the journal cannot keep (structured content nested too deep to write as JSON) would be a tool error
  // the model sees, "its output is not JSON", and could answer by calling again: the server acted
  const lost = notJson(output);
  if (lost !== undefined) throw cannotRead(`its structured content cannot be kept as JSON: ${lost}`);
  const size = JSON.stringify(output)?.length ?? 0;
  if (size > MAX_RESULT_CHARS) throw tooLarge(name, size, effects);
  return output;
}

/**
 * What the server now says of the tools one mcpTools call took (see {@link listedNow}): `latest`, its tools by
 * name as last listed again (`undefined`: as taken), `stale` once it said its tools changed
 * (notifications/tools/list_changed) or the client connected anew (`transport`, the one watched), `changes`
 * counting each such word (a listing begun before the last is stale when it ends).
 */
interface Listed extends ToolsWatcher {
  transport: object | undefined;
  stale: boolean;
  changes: number;
  latest?: Map<string, McpToolInfo> | undefined;
  relisting?: Promise<void> | undefined;
}

/** Watches the client for a word that its server's tools changed, from before they are listed (see {@link Listed}). */
function watchListing(client: McpClient): Listed {
  const listed: Listed = {
    transport: undefined,
    stale: false,
    changes: 0,
    changed: () => {
      listed.stale = true;
      listed.changes++;
    },
  };
  listed.transport = onToolsChanged(client, listed);
  return listed;
}

/**
 * Whether two JSON values (input schemas as a server lists them) are the same, their objects' keys in any order.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameJson(x, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** The most times the tools are listed again for one call while the server goes on saying they changed. */
const MAX_RELISTS = 3;

/**
 * The server's tools by name as it lists them now, `undefined` when nothing says they changed since mcpTools
 * listed them: once it said they changed (or the client connected anew), they are listed again, once for every
 * call waiting, until it says so again.
 */
async function listedNow(client: McpClient, listed: Listed, reader: ListingReader, timeout: number | undefined): Promise<Map<string, McpToolInfo> | undefined> {
  const transport = (client as { transport?: unknown }).transport;
  if (transport !== listed.transport && typeof transport === "object" && transport !== null) {
    // connected anew: perhaps to another server, or one whose tools changed while it was away
    listed.transport = onToolsChanged(client, listed);
    listed.changed();
  }
  for (let round = 0; listed.stale; round++) {
    if (round === MAX_RELISTS)
      throw new FunctaiError("remote-protocol", `the MCP server's tools changed again each time they were listed (${MAX_RELISTS} times)`);
    if (listed.relisting === undefined) {
      const asOf = listed.changes;
      listed.relisting = listAll(client, reader, timeout)
        .then(({ tools }) => {
          const latest = new Map<string, McpToolInfo>();
          for (const t of tools) if (!latest.has(t.name)) latest.set(t.name, t);
          listed.latest = latest;
          if (listed.changes === asOf) listed.stale = false;
        })
        .finally(() => {
          listed.relisting = undefined;
        });
    }
    await listed.relisting;
  }
  return listed.latest;
}

/**
 * The tools of a connected MCP server, as functai tools: name, description
 * and the server's input JSON Schema given to the model as they are (inputs
 * are checked against that schema before a tool runs). Effects come from
 * the annotations (`readOnlyHint: true` reads, anything else changes) unless
 * `effects` says otherwise. A result's structured content, else its content
 * parts, is what the model sees (images, audio and blobs by MIME type and
 * size, never their base64; parts for the user only left out, counted, and
 * shown to the person with the call's result, `ctx.show`: see {@link outputOf}); `isError` is a tool error the model sees. A call to
 * a changing tool that was sent and never answered (the connection closed
 * or its transport failed under it, or it timed out), or answered with a
 * result that cannot be read (not an MCP result, no content, or structured content that
 * breaks the tool's output schema, checked here for every tool whatever page
 * of the listing it was on, and for every result not marked `isError`; or a
 * JSON-RPC answer whose result or error the transport cannot read, which fails
 * the call it answered at once, not at its timeout: see {@link untilUnreadable}; so does an answer whose
 * `id` is `null`, left out or no request id, when it is the one request waiting), or whose connection the
 * transport closed for a message past its limit (said, with the limit: 10 MB over stdio),
 * may have acted: the turn stops for a person, resumable (`turn-unfinished`),
 * the call unfinished (a client whose `onclose` connects it again at once included: the SDK's "Connection closed"
 * is still its own, not the server's answer). A reading call whose connection was lost under it is `remote-closed`,
 * saying so. The server's own error answers are tool errors the model sees, those with the SDK's
 * codes too (-32000; a -32001 the server sends, "timed out", stops a changing call for a person, saying the
 * server answered it); so is a call the server refused before running it (an HTTP 4xx to its POST, as after
 * a restart that lost the client's session: `remote-closed`, `remote-auth`, `remote-rate-limit`, told by the
 * SDK error's message and status, not its class's name, which bundlers rename), and so is a call on a client
 * whose connection is closed (its server ended): `remote-closed`, "Not connected to the MCP server <name>",
 * saying to connect the client again; never sent, it did not run, a changing call's included. Once the server
 * says its tools changed (notifications/tools/list_changed), or the client connected anew, each tool is looked
 * up again before it runs (one listing for all the calls waiting), and is not sent when the server no longer
 * lists it, lists it with another input or output schema, or, taken as reading by its annotations, now says it
 * changes (`settings-invalid`, a tool error the model sees: take the tools again with mcpTools); a call whose
 * turn is stopped while it waits for that listing stops waiting (`turn-aborted`), never sent. A call refused
 * for its OAuth token (the SDK's `UnauthorizedError` or `OAuthError` from the transport's OAuth provider, or its
 * 401/403 after authorizing anew) is `remote-auth`: it did not run; a listing refused so is `remote-auth` too; so is
 * one whose new token could not be got (the OAuth authorization server down, its connection reset, or answering
 * an error: the call was held back, unsent). A call for which no connection could be made (refused, no such host)
 * is `remote-closed`: nothing was sent, a changing call's included. A result past 1,000,000 characters (as the
 * model would read it: its text, its structured content as JSON, its error's words) is `tool-failed`, a tool
 * error the model sees, saying its size and the bound, nothing of it kept; a changing tool's says it ran (its
 * `done` record keeps that: it is never run again on its own). Over Streamable HTTP an answer is read no
 * further than 16,000,000 bytes on the wire (a JSON answer in all, a stream each event, the GET stream the client
 * opened when it connected included: mcpTools reopens it so before it lists the tools; not over the old SSE
 * transport, whose one stream, opened when it connected, carries its session): past it, reading stops and
 * the call is `tool-failed` as above, a changing tool's saying it ran (a listing's is `remote-protocol`). A call
 * whose timeout ends while its POST, refused for its OAuth token, waits for a new one (the token endpoint not
 * answering) is `remote-auth`, saying it did not run, and is never sent when the token comes (a listing so is
 * `remote-auth` too). A listing past 10,000 tools is `remote-protocol`. An answer whose
 * `jsonrpc` is wrong or missing fails the call it answered at once, as one whose result cannot be read; so does one
 * with a top-level key JSON-RPC does not name, whose `id` is a call waiting (over stdio, and over Streamable HTTP on
 * the POST that carried the call), never read leniently. A call refused with an HTTP 4xx over the old SSE transport
 * is a tool error as over Streamable HTTP, saying what to fix. The SDK's Client never connected is
 * `settings-invalid`; a wrapper of it (no `transport`) whose methods are not bound to it is said to be one. A tool
 * with an input named `__proto__` (which a JavaScript object cannot keep) is `settings-invalid`. Each call sends its `ctx.idempotencyKey` in the
 * request's `_meta` as `functai.dev/idempotencyKey` (the same for a person's
 * rerun; an SDK server's handler reads it in `extra._meta`), so a server that
 * deduplicates performs it once. A reading tool's unreadable answer is a tool
 * error the model sees (`remote-protocol`, saying what is wrong with it). The
 * tools are journaled, approved and resumed like any tool; a stopped turn
 * cancels the request, as does a call past `timeout` (ms; the SDK's default is
 * 60,000). A listing that fails is `remote-closed` (the connection is
 * gone) or `remote-protocol` (the server answered with an error or an answer that
 * cannot be read, or its pages go round in a circle or never end); so is a taken tool whose name the server
 * lists twice, or that breaks MCP's schema of a tool (leave it out with
 * `include`: the rest are usable). A `nextCursor: ""` is the last page. A `null` where MCP lets a field be left out
 * (`nextCursor: null`, a tool's `description: null`, a result's
 * `structuredContent: null`) is read as left out. A tool whose name, input names or schema providers refuse, whose
 * schema names a JSON Schema dialect functai does not check (it checks 2020-12,
 * MCP's default, 2019-09, draft-07 and draft-06), or that runs only as a task
 * (`execution.taskSupport: "required"`), is `settings-invalid`: leave it out with
 * `include`. An `include` test must answer at once (one that answers a promise
 * is `settings-invalid`).
 *
 * @example
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
 * import { mcpTools } from "functai/mcp";
 *
 * const client = new Client({ name: "desk", version: "1.0.0" });
 * await client.connect(new StdioClientTransport({ command: "node", args: ["orders-server.js"] }));
 * const tools = await mcpTools(client, { include: ["lookup_order", "refund"] });
 * const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools });
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<McpTool[]> {
  if (!client || typeof client.listTools !== "function" || typeof client.callTool !== "function")
    throw new FunctaiError("settings-invalid", "mcpTools takes a connected Client of @modelcontextprotocol/sdk");
  checkOptions(options);
  refuseUnconnected(client);
  // the SDK first: without it, it is the package to name (ajv comes with it)
  const readResult = await loadResultReader();
  const makeCheck = await loadCheckMaker();
  const listingReader = await loadListingReader();
  // over HTTP, answers are bounded on the wire from now on, the GET stream the client opened when it connected
  // reopened so (what the server says on it while it is reopened goes nowhere: the tools are listed after)
  await boundWire(client);
  // watched from before the listing: a word that the tools changed while it is read is not missed
  const listed = watchListing(client);
  const listing = await listAll(client, listingReader, options.timeout);
  const tools = chosen(listing.tools, options);
  refuseUnreadable(tools, listing.unreadable);
  return tools.map((info) => {
    const { name, parameters } = offerable(info);
    let check;
    try {
      check = makeCheck(parameters);
    } catch (e) {
      throw new FunctaiError("settings-invalid", `the MCP tool ${name} has an input schema that cannot be checked: ${describeError(e)}`, {
        cause: e,
      });
    }
    const checkOutput = outputCheck(info, name, makeCheck);
    // own keys only: a tool named "constructor" or "toString" would find Object.prototype's function
    const given = options.effects && Object.hasOwn(options.effects, name) ? options.effects[name] : undefined;
    const effects = given ?? effectsOf(info);
    /**
     * Once the server said its tools changed (or the client connected anew), the tool is looked up again before
     * it runs (see {@link listedNow}), and not run when the server no longer lists it, lists it with another input
     * schema (the model's arguments were written, and checked, for the old one) or output schema (its answer
     * would be checked against the old one), or, taken as reading by its
     * annotations, now says it changes (it was offered as reading, and is called with no person asked).
     */
    const stillListed = async (): Promise<void> => {
      let latest: Map<string, McpToolInfo> | undefined;
      try {
        latest = await listedNow(client, listed, listingReader, options.timeout);
      } catch (e) {
        const why = e instanceof FunctaiError ? e : listingFailed(client, e);
        throw new FunctaiError(
          why.code,
          `the MCP tool ${name} was not run: the MCP server said its tools changed, and they could not be listed again to see whether it is still the tool it was (${why.message})`,
          { cause: e },
        );
      }
      if (latest === undefined) return;
      const again = "take the server's tools again with mcpTools";
      const now = latest.get(name);
      if (now === undefined)
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server no longer lists ${name} (its tools changed after mcpTools took them), so it was not run: ${again}`,
        );
      if (!sameJson(now.inputSchema, info.inputSchema))
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server changed the input schema of ${name} after mcpTools took it, so it was not run (its input was written for the old schema): ${again}`,
        );
      // its answer would be checked against the output schema it had (a good answer read as one that breaks it)
      if (!sameJson(now.outputSchema, info.outputSchema))
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server changed the output schema of ${name} after mcpTools took it, so it was not run (its answer would be checked against the old schema): ${again}`,
        );
      if (given === undefined && effects === "reads" && effectsOf(now) === "changes")
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server now says ${name} changes things (its annotations changed after mcpTools took it as reading), so it was not run: ${again}, to call it as a changing tool (approved like one), or give its effects with mcpTools(client, { effects })`,
        );
    };
    /** An answer that came back and cannot be read: a changing tool may have acted on it (a person says), a reading one fails. */
    const unreadableAnswer = (why: string, cause?: unknown): Error =>
      effects === "changes"
        ? new NeedsPerson(
            `the MCP tool ${name} may have run: the MCP server's answer could not be read (${why}). Say what it returned, or ask for a rerun.`,
          )
        : new FunctaiError(
            "remote-protocol",
            `the MCP server's answer to ${name} could not be read: ${why}`,
            cause === undefined ? undefined : { cause },
          );
    const tool: McpTool = {
      kind: "mcp",
      name,
      description: info.description ?? info.title ?? "",
      inputSchema: inputSchemaFrom(check),
      parameters,
      info,
      toolEffects: effects,
      composite: false,
      // a person's result (resume's results) is what the server's structured content would be: held to the same schema
      checkResult: (output) =>
        checkOutput === undefined ? null : outputProblem(checkOutput, { content: [], structuredContent: output as Record<string, unknown> }),
      async runAsTool(input, ctx) {
        let result: unknown;
        const reader = readResult();
        // a call stopped while its tool is looked up again stops waiting, and is never sent (the listing goes on)
        await untilAborted(stillListed(), ctx.signal, abortError);
        try {
          // a stopped turn cancels the request (the SDK sends notifications/cancelled to the server)
          const params = { name, arguments: input, _meta: { [IDEMPOTENCY_KEY]: ctx.idempotencyKey } };
          result = await send(client, params, reader, ctx.signal, options.timeout);
        } catch (e) {
          if (ctx.signal.aborted) throw e;
          // its answer (or a message of its stream) was past what is read of one on the wire (over HTTP)
          if (e instanceof OversizedBody) throw cutOff(name, e, effects);
          // its POST was held back for an OAuth token that did not come in time: the server never took it
          if (e instanceof HeldBack) throw heldBackError(`the call of ${name}`, e);
          // a result came back that the SDK could not read (not an MCP result, or breaking the tool's output
          // schema): the server took the call and answered it, so it may have acted, whatever the answer said
          if (reader.answered()) throw unreadableAnswer(unreadable(e), e);
          // an answer to this call came back that the transport could not read (not JSON-RPC): the server answered it
          if (e instanceof UnreadableMessage) throw unreadableAnswer(e.message, e.cause);
          // the connection closed for a message of the server's too large to read: perhaps this call's answer
          if (e instanceof OversizedMessage) {
            if (effects === "changes")
              throw new NeedsPerson(`the MCP tool ${name} may have run: ${e.message}. Say what it returned, or ask for a rerun.`);
            throw new FunctaiError("remote-closed", `the MCP tool ${name} could not be called: ${e.message}`, { cause: e.cause });
          }
          // the client has no connection (its server ended): nothing was sent, so nothing ran, a changing tool's call included
          const unconnectedError = notConnectedError(client, e, `the MCP tool ${name} was not called`);
          if (unconnectedError !== undefined) throw unconnectedError;
          // the server refused it unread (a session it no longer knows, after a restart): a tool error, it never ran
          const refused = refusedUnread(name, e, e instanceof Error ? await loadAuthErrors() : undefined);
          if (refused !== undefined) throw refused;
          if (effects === "changes" && outcomeUnknown(e))
            throw new NeedsPerson(
              serverAnswers.has(e as object)
                ? `the MCP tool ${name} may have run: the MCP server answered ${describeError(e)}. Say what it returned, or ask for a rerun.`
                : `the MCP tool ${name} may have run: ${describeError(e)}, and no answer came back. Say what it returned, or ask for a rerun.`,
            );
          // a reading call whose connection was lost under it: said so, with a code, not as the transport's bare error
          if (connectionLost(e))
            throw new FunctaiError(
              "remote-closed",
              `the MCP tool ${name} did not finish: the connection to the MCP server was lost during the call (${describeError(e)})`,
              { cause: e },
            );
          throw e;
        }
        // the parts for the user only go to the person with the call's result (`ctx.show`), never to the model
        for (const part of userParts(result as McpCallResult)) ctx.show(part);
        return answerOf(name, result as McpCallResult, reader, checkOutput, unreadableAnswer, effects);
      },
    };
    return tool;
  });
}
