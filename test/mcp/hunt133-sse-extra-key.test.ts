/**
 * Hunt 133: over the old SSE transport (every answer comes on its one stream of events), an answer to a call with a
 * top-level key JSON-RPC does not name (`{ jsonrpc, id, result, extra }`). Hunt 127 told such an answer over stdio
 * (by its line) and over Streamable HTTP (on the wire): over SSE the SDK's transport dropped it (the one issue
 * "Unrecognized key", told to onerror, which a notification with such a key gives too) and the call waited out its
 * whole timeout. Now, as over the others, its id names its call, which fails at once (`remote-protocol`, naming the
 * key); another call waiting still gets its own answer.
 *
 * The server is the SDK's (`SSEServerTransport`, over node:http in this process); the answer to each call of a tool
 * named in `extra` is sent with the key `extra`. Each call's timeout is far past the test's own.
 */
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, type JSONRPCMessage, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { listenAndConnect } from "./fixtures/hunt52-http.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** The SDK's server over its SSE transport, answering each call "ran <name>", with the key `extra` for those named in `extra`. */
async function sseServer(tools: unknown[], extra: string[]) {
  const server = new Server({ name: "hunt133-sse", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }) as never);
  /** The ids of the calls to answer with the key. */
  const marked = new Set<unknown>();
  server.setRequestHandler(CallToolRequestSchema, async (request, { requestId }) => {
    if (extra.includes(request.params.name)) marked.add(requestId);
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  let transport: SSEServerTransport | undefined;
  const http = createServer((req, res) => {
    if (req.method !== "GET") return void transport?.handlePostMessage(req, res);
    const t = new SSEServerTransport("/messages", res);
    const send = t.send.bind(t);
    t.send = (message: JSONRPCMessage) => send(marked.has((message as { id?: unknown }).id) ? ({ ...message, extra: 1 } as never) : message);
    transport = t;
    void server.connect(t);
  });
  return listenAndConnect(http, server, "hunt133-sse-test", "sse");
}

describe("over the SSE transport, an answer with a key JSON-RPC does not name", () => {
  it("to a reading call: a tool error at once (remote-protocol) naming the key; the connection still answers", async () => {
    const { client } = kept(await sseServer([tool45("peek"), tool45("lookup")], ["peek"]));
    const [peek, lookup] = await mcpTools(client, { timeout: TIMEOUT });
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-protocol",
      message: expect.stringMatching(/peek could not be read: it has the key "extra" beside/),
    });
    expect(await lookup!.runAsTool({}, ctx45().ctx)).toBe("ran lookup");
  }, 30_000);

  it("to a changing call: its turn stops for a person at once (the server answered: it may have run)", async () => {
    const { client } = kept(await sseServer([tool45("refund", true)], ["refund"]));
    const [refund] = await mcpTools(client, { timeout: TIMEOUT });
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      message: expect.stringMatching(/refund may have run: .*could not be read \(it has the key "extra"/),
    });
  }, 30_000);
});
