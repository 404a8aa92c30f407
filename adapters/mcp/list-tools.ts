/**
 * Listing a server's tools (every page, bounded), telling a listing that failed, and listing them again once the
 * server says they changed (see {@link listedNow}).
 */
import { FunctaiError } from "../../src/errors.js";
import { isRecord } from "../../src/runtime/values.js";
import type { ListedPage, ListingReader } from "./listing.js";
import { type AuthErrors, loadAuthErrors, notConnectedError, refusedUnread } from "./refusals.js";
import { HeldBack, heldBackError, onWire, serverAnswers, timed } from "./request.js";
import { unreadable } from "./result.js";
import type { McpClient, McpToolInfo } from "./types.js";
import { CONNECTION_CLOSED, OversizedMessage, type ToolsWatcher, UnreadableMessage, onToolsChanged, untilUnreadable } from "./watch.js";
import { AcceptedRequest, AnswerStreamEnded, OversizedBody, type PostedRequest } from "./wire.js";

/**
 * A listing that failed, as a FunctaiError: the connection is gone (closed,
 * or never made), or the server answered with an error or with a listing
 * the SDK cannot read (said by path, as {@link unreadable} says it, not as
 * the SDK's ZodError dump).
 */
export function listingFailed(client: McpClient, e: unknown, auth?: AuthErrors): FunctaiError {
  // refused for its OAuth token (or an HTTP 4xx to its POST): said with the refusal's own code
  const refused = refusedUnread("tools/list", e, auth);
  if (refused !== undefined) return new FunctaiError(refused.code, `the MCP server's tools could not be listed: ${refused.message}`, { cause: e });
  const unconnectedError = notConnectedError(client, e, "the MCP server's tools could not be listed");
  if (unconnectedError !== undefined) return unconnectedError;
  if (e instanceof HeldBack)
    return new FunctaiError("remote-auth", `the MCP server's tools could not be listed: ${heldBackError("tools/list", e).message}`, {
      cause: e.cause,
    });
  if (e instanceof OversizedBody || e instanceof AcceptedRequest)
    return new FunctaiError("remote-protocol", `the MCP server's tools could not be listed: ${e.message}`, { cause: e });
  if (e instanceof OversizedMessage)
    return new FunctaiError("remote-closed", `the MCP server's tools could not be listed: ${e.message}`, { cause: e.cause });
  if (e instanceof UnreadableMessage)
    return new FunctaiError("remote-protocol", `the MCP server's tools could not be listed: its answer could not be read (${e.message})`, {
      cause: e.cause,
    });
  // (the server's own answer with the SDK's code for a closed connection is an error it answered with)
  const closed = ((e as { code?: unknown } | null)?.code === CONNECTION_CLOSED && !serverAnswers.has(e as object)) || e instanceof AnswerStreamEnded;
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
export async function listAll(client: McpClient, reader: ListingReader, timeout: number | undefined): Promise<Omit<ListedPage, "nextCursor">> {
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
export function refuseUnreadable(taken: readonly McpToolInfo[], unreadableTools: ReadonlyMap<McpToolInfo, string>): void {
  const problems = taken.flatMap((t) => unreadableTools.get(t) ?? []);
  if (problems.length > 0)
    throw new FunctaiError(
      "remote-protocol",
      `the MCP server's tools could not be listed: ${problems.join("; ")}; leave ${problems.length === 1 ? "it" : "them"} out with mcpTools(client, { include })`,
    );
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
export function watchListing(client: McpClient): Listed {
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
export function sameJson(a: unknown, b: unknown): boolean {
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
export async function listedNow(
  client: McpClient,
  listed: Listed,
  reader: ListingReader,
  timeout: number | undefined,
): Promise<Map<string, McpToolInfo> | undefined> {
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
