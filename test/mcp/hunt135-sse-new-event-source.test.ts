/**
 * Hunt 135: over the old SSE transport, an EventSource the SDK makes after mcpTools took the tools. mcpTools taps the
 * transport's `_eventSource` (hunt 133) to tell whose an answer it cannot read is (one with a top-level key JSON-RPC
 * does not name: `{ jsonrpc, id, result, extra }`). When the stream ends and its reconnection is refused for its
 * OAuth token (401), the SDK's transport authorizes again (its `authProvider`) and opens a new EventSource in its
 * place: that one was not tapped, and such an answer to a call, coming on it, was dropped and the call waited out its
 * whole timeout (with an `eventSourceInit.fetch` of the caller's, its stream does not go through the fetch mcpTools
 * bounds either). Now each EventSource the transport makes is tapped: the call fails at once, as on the first.
 *
 * The server is the SDK's (`SSEServerTransport`, one `Server` per stream, over node:http in this process) behind a
 * bearer check with a token endpoint of its own (client_credentials: a new token at once); `revoke()` refuses every
 * token given so far and ends the open stream, which the client opens again (its server said `retry: 20`), is
 * refused, authorizes, and opens anew. POSTs go to the newest stream's session. Each call's timeout is far past the
 * test's own.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type SSEClientTransportOptions, SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, type JSONRPCMessage, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { clientCredentials } from "./fixtures/client-credentials.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** A server for one stream: `peek` (reading) and `refund` (changing), each call answered "ran <name>", the key `extra` on its answer. */
function streamServer(marked: Set<unknown>) {
  const server = new Server({ name: "hunt135-sse", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("peek"), tool45("refund", true)] }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request, { requestId }) => {
    marked.add(requestId);
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  return server;
}

async function authSse(options: SSEClientTransportOptions = {}) {
  const valid = new Set(["good"]);
  let issued = 1;
  const marked = new Set<unknown>();
  const servers: Server[] = [];
  let latest: { transport: SSEServerTransport; end(): void } | undefined;
  /** Settled when the stream opened after `revoke()` is connected (its EventSource made, its token the new one). */
  let reopened = (): void => undefined;
  let marking = false;
  const http = createServer((req, res) => {
    if (req.url === "/token" && req.method === "POST") {
      req.resume();
      return void req.on("end", () => {
        const token = `t${++issued}`;
        valid.add(token);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: token, token_type: "Bearer" }));
      });
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (token === undefined || !valid.has(token)) return void res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end();
    if (req.method === "POST") return void latest?.transport.handlePostMessage(req, res);
    const transport = new SSEServerTransport("/messages", res);
    const send = transport.send.bind(transport);
    transport.send = (m: JSONRPCMessage) => send(marking && marked.has((m as { id?: unknown }).id) ? ({ ...m, extra: 1 } as never) : m);
    const server = streamServer(marked);
    servers.push(server);
    latest = { transport, end: () => res.end() };
    void server.connect(transport).then(() => {
      res.write("retry: 20\n\n");
      if (servers.length > 1) reopened();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = clientCredentials(base, base, "hunt135");
  const client = new Client({ name: "hunt135-test", version: "1.0.0" });
  await client.connect(new SSEClientTransport(new URL(`${base}/sse`), { ...options, authProvider: provider }));
  const close = async () => {
    await client.close().catch(() => {});
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    for (const server of servers) await server.close();
  };
  /** Refuses every token given so far and ends the open stream: resolves once the client's new stream is open. */
  const revoke = async () => {
    const opened = new Promise<void>((resolve) => (reopened = resolve));
    valid.clear();
    latest?.end();
    await opened;
    // from now on, each answer to a call has the key `extra`
    marking = true;
  };
  return { client, close, revoke };
}

/** The caller's own fetch for the EventSource (as for headers of its own): its stream does not go through the transport's `_fetch`. */
const ownFetch: SSEClientTransportOptions = { eventSourceInit: { fetch: (url, init) => fetch(url, init) } };

describe("over the SSE transport, an answer with a key JSON-RPC does not name on the EventSource made after authorizing again", () => {
  const readingCases: [string, SSEClientTransportOptions][] = [
    ["its stream through the fetch mcpTools bounds (no eventSourceInit.fetch): a reading call fails at once (guard)", {}],
    ["with the caller's eventSourceInit.fetch: a reading call, a tool error at once (remote-protocol) naming the key, not its timeout", ownFetch],
  ];
  for (const [title, options] of readingCases)
    it(title, async () => {
      const s = kept(await authSse(options));
      const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
      await s.revoke();
      await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
        code: "remote-protocol",
        message: expect.stringMatching(/peek could not be read: it has the key "extra" beside/),
      });
    }, 30_000);

  it("with the caller's eventSourceInit.fetch (its stream not through mcpTools' fetch): a changing call stops for a person at once", async () => {
    const s = kept(await authSse(ownFetch));
    const [, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
    await s.revoke();
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      message: expect.stringMatching(/refund may have run: .*could not be read \(it has the key "extra"/),
    });
  }, 30_000);
});
