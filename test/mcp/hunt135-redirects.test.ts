/**
 * Hunt 135: a call whose POST is answered with an HTTP redirect the client's transport does not follow. The SDK
 * (its `redirectPolicy`, `"same-origin"` by default) follows a redirect only when it keeps the method and the
 * origin, at most 5 times; any other (to another origin, a 301/302/303 of a POST, one without Location, one past
 * the fifth, any under `requestInit.redirect: "manual"`) fails the request with its `StreamableHTTPError` of that
 * 3xx status ("Error POSTing to endpoint: Redirect to … not followed"), or, over the old SSE transport, its plain
 * Error "Error POSTing to endpoint (HTTP 3xx)". Under `redirectPolicy: "follow"` fetch follows them itself, and
 * fails with its `TypeError: fetch failed` whose cause is "redirect count exceeded" past its 20; under
 * `requestInit.redirect: "error"` with "unexpected redirect" at the first. Each of them says the last answer to the
 * POST was a redirect: no MCP server's handler took the call. A changing call's turn stopped for a person all the
 * same ("may have run … no answer came back"), and a reading call failed with the bare error. Now each is a tool
 * error, `remote-closed`, saying the tool did not run and that the endpoint answered with a redirect.
 *
 * The server is the SDK's (`StreamableHTTPServerTransport`, or `SSEServerTransport`, over node:http in this
 * process); `redirect(status, location?)` answers every POST after it with that status before the MCP transport sees
 * it, as a gateway that moved the endpoint does. `calls` are the tools it ran.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { listenAndConnect, recordingServer } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

/** What every POST is answered with once `redirect` is called: `location` absolute, or a path on the server. */
type Redirect = { status: number; location?: string | undefined };

/** Answers `req` with the redirect, when one is set and it is a POST; else `undefined`. */
function redirected(redirect: Redirect | undefined, method: string | undefined, res: import("node:http").ServerResponse): boolean {
  if (redirect === undefined || method !== "POST") return false;
  res.writeHead(redirect.status, redirect.location === undefined ? {} : { location: redirect.location }).end("moved");
  return true;
}

/** The SDK's server over Streamable HTTP listing `refund` (changing) and `peek` (reading), a client connected with `options`. */
async function httpServer(options: StreamableHTTPClientTransportOptions = {}) {
  let redirect: Redirect | undefined;
  const { server, transport, calls } = await recordingServer("hunt135-redirects", [tool45("refund", true), tool45("peek")]);
  const http = createServer((req, res) => void (redirected(redirect, req.method, res) || transport.handleRequest(req, res)));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const client = new Client({ name: "hunt135-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`), options));
  const close = async () => {
    await client.close().catch(() => {});
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await server.close();
  };
  return { client, calls, transport, close, redirect: (status: number, location?: string) => void (redirect = { status, location }) };
}

/** The same tools over the old SSE transport. */
async function sseServer() {
  let redirect: Redirect | undefined;
  const calls: string[] = [];
  const server = new Server({ name: "hunt135-sse", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("refund", true), tool45("peek")] }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push(request.params.name);
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  let transport: SSEServerTransport | undefined;
  const http = createServer((req, res) => {
    if (req.method === "GET") {
      transport = new SSEServerTransport("/messages", res);
      return void server.connect(transport);
    }
    if (!redirected(redirect, req.method, res)) void transport?.handlePostMessage(req, res);
  });
  const listening = await listenAndConnect(http, server, "hunt135-sse-test", "sse");
  return { ...listening, calls, redirect: (status: number, location?: string) => void (redirect = { status, location }) };
}

/** What a changing call ends with, when it did not run: a tool error, not a turn stopped for a person. */
const didNotRun = (status: string) => ({
  name: "FunctaiError",
  code: "remote-closed",
  message: expect.stringMatching(new RegExp(`^the MCP server answered the call of refund with a redirect ${status}.*it did not run`)),
});

const ELSEWHERE = "http://localhost:9/mcp";

describe("a changing call whose POST is answered with a redirect not followed: a tool error saying it did not run, not a call in doubt", () => {
  for (const [what, status, location, options] of [
    ["to another origin (307)", 307, ELSEWHERE, {}],
    ["a 302 of the POST on its own origin (it would become a GET)", 302, "/mcp", {}],
    ["a 308 without Location", 308, undefined, {}],
    ["a 307 to itself, past the SDK's 5 redirects", 307, "/mcp", {}],
    ['a 307 under requestInit.redirect: "manual"', 307, "/mcp", { requestInit: { redirect: "manual" } }],
    ['a 308 without Location under redirectPolicy: "follow"', 308, undefined, { redirectPolicy: "follow" }],
  ] as const)
    it(what, async () => {
      const s = kept(await httpServer(options as StreamableHTTPClientTransportOptions));
      const [refund] = await mcpTools(s.client);
      s.redirect(status, location);
      await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject(didNotRun(`\\(HTTP ${status}\\)`));
      expect(s.calls).toEqual([]);
    }, 30_000);

  it('a 307 to itself under redirectPolicy: "follow": fetch gives up past its 20 (fetch failed: redirect count exceeded)', async () => {
    const s = kept(await httpServer({ redirectPolicy: "follow" }));
    const [refund] = await mcpTools(s.client);
    s.redirect(307, "/mcp");
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject(didNotRun("fetch did not follow \\(redirect count exceeded\\)"));
    expect(s.calls).toEqual([]);
  }, 30_000);

  it('a 307 under requestInit.redirect: "error": fetch refuses it (fetch failed: unexpected redirect)', async () => {
    const s = kept(await httpServer({ requestInit: { redirect: "error" } }));
    const [refund] = await mcpTools(s.client);
    s.redirect(307, "/mcp");
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject(didNotRun("fetch did not follow \\(unexpected redirect\\)"));
    expect(s.calls).toEqual([]);
  }, 30_000);

  it('a browser\'s opaque redirect (its fetch under redirect: "manual": status 0, no Location)', async () => {
    let opaque = false;
    // (as a browser answers: Node's fetch gives the 3xx itself)
    const browserFetch = async (url: string | URL, init?: RequestInit) => {
      if (!opaque || init?.method !== "POST") return fetch(url, init);
      const response = new Response(null, { status: 500 });
      for (const [key, value] of [
        ["status", 0],
        ["type", "opaqueredirect"],
        ["ok", false],
      ] as const)
        Object.defineProperty(response, key, { value });
      return response;
    };
    const s = kept(await httpServer({ fetch: browserFetch }));
    const [refund] = await mcpTools(s.client);
    opaque = true;
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject(
      didNotRun("that was not followed \\(.*does not expose the redirect target"),
    );
    expect(s.calls).toEqual([]);
  }, 30_000);

  it("over the old SSE transport, a 307 to another origin", async () => {
    const s = kept(await sseServer());
    const [refund] = await mcpTools(s.client);
    s.redirect(307, ELSEWHERE);
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject(didNotRun("\\(HTTP 307\\)"));
    expect(s.calls).toEqual([]);
  }, 30_000);
});

describe('redirectPolicy: "follow" once mcpTools took the tools (its fetch wrapped, to bound answers)', () => {
  it("a POST redirected to another origin (307) is still followed, as the transport was told: the call runs there", async () => {
    const s = kept(await httpServer({ redirectPolicy: "follow" }));
    // the same MCP server, on another port: another origin, which "same-origin" would not follow
    const other = createServer((req, res) => void s.transport.handleRequest(req, res));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    kept({ close: () => new Promise<void>((resolve) => other.close(() => resolve())) });
    const [refund] = await mcpTools(s.client);
    s.redirect(307, `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`);
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
    expect(s.calls).toEqual(["refund"]);
  }, 30_000);
});

describe("a reading call, and the listing, answered with a redirect not followed", () => {
  it("a reading call: remote-closed, saying where the endpoint redirects and that it did not run (not the bare error)", async () => {
    const s = kept(await httpServer());
    const [, peek] = await mcpTools(s.client);
    s.redirect(307, ELSEWHERE);
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-closed",
      message: expect.stringMatching(/call of peek with a redirect \(HTTP 307\).*Redirect to http:\/\/localhost:9\/mcp not followed.*did not run/),
    });
  }, 30_000);

  it("the listing: remote-closed, saying the endpoint answered with a redirect (not remote-protocol)", async () => {
    const s = kept(await httpServer());
    s.redirect(301, ELSEWHERE);
    await expect(mcpTools(s.client)).rejects.toMatchObject({
      code: "remote-closed",
      message: expect.stringMatching(/^the MCP server's tools could not be listed: .*with a redirect \(HTTP 301\)/),
    });
  }, 30_000);
});
