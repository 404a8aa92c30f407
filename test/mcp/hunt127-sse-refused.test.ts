/**
 * Hunt 127: a call over the old SSE transport whose POST the server refuses with an HTTP 4xx (a session it no
 * longer knows, 404, as after a restart; a missing token, 401). The SDK's SSE transport throws a plain Error,
 * "Error POSTing to endpoint (HTTP 404): …", not the Streamable HTTP transport's error that mcpTools read as a
 * refusal: a changing call's turn stopped for a person ("may have run … no answer came back") though the server
 * never took it, and a reading call failed with the bare error, no code, naming nothing to fix. Now, as over
 * Streamable HTTP, such a call is a tool error saying the server refused it before running it (`remote-closed`
 * for a lost session, `remote-auth` for a token) and what to do.
 *
 * The server is the SDK's (`SSEServerTransport`, over node:http in this process); `refuse(status)` answers every
 * POST after it with that status, as the app in front of the transport does for a session it does not know.
 */
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { listenAndConnect } from "./fixtures/hunt52-http.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** The SDK's server over its SSE transport, listing `tools` and answering each call "ran <name>" (kept in `calls`). */
async function sseServer(tools: unknown[]) {
  const calls: string[] = [];
  const server = new Server({ name: "hunt127-sse", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push(request.params.name);
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  let transport: SSEServerTransport | undefined;
  let refused: { status: number; body: string } | undefined;
  const http = createServer((req, res) => {
    if (req.method === "GET") {
      transport = new SSEServerTransport("/messages", res);
      void server.connect(transport);
    } else if (refused !== undefined) res.writeHead(refused.status).end(refused.body);
    else void transport?.handlePostMessage(req, res);
  });
  const listening = await listenAndConnect(http, server, "hunt127-sse-test", "sse");
  return { ...listening, calls, refuse: (status: number, body: string) => void (refused = { status, body }) };
}

describe("a call over the SSE transport whose POST is refused with a 4xx", () => {
  it("404 (a session the server no longer knows) to a changing call: a tool error saying it did not run and to connect again, not a call that may have run", async () => {
    const { client, calls, refuse } = kept(await sseServer([tool45("refund", true)]));
    const desk = await makeDesk(client);
    refuse(404, "Session not found");
    const chat = desk.conversation("sam", { store: memoryStore(), lm: deskModel({ name: "refund", input: {} }) });
    expect(await chat.send("Refund it.")).toMatch(
      /^failed: .*refused the call of refund before running it \(HTTP 404\).*Session not found.*connect the client again/,
    );
    expect(calls).toEqual([]);
  }, 30_000);

  it("401 (no token) to a reading call: remote-auth, saying it did not run and to authorize the client", async () => {
    const { client, calls, refuse } = kept(await sseServer([tool45("peek")]));
    const [peek] = await mcpTools(client);
    refuse(401, "Unauthorized");
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-auth",
      message: expect.stringMatching(/refused the call of peek before running it \(HTTP 401\).*authoriz/),
    });
    expect(calls).toEqual([]);
  }, 30_000);

  it("404 to the listing: mcpTools fails remote-closed, saying the server refused it and to connect again", async () => {
    const { client, refuse } = kept(await sseServer([tool45("peek")]));
    refuse(404, "Session not found");
    await expect(mcpTools(client)).rejects.toMatchObject({
      code: "remote-closed",
      message: expect.stringMatching(/tools could not be listed: .*\(HTTP 404\).*connect the client again/),
    });
  }, 30_000);
});
