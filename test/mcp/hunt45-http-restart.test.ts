/**
 * Hunt 45: an MCP server over Streamable HTTP that restarted (its sessions gone). The SDK's server answers the
 * POST carrying a call with HTTP 400 ("Server not initialized": the session is unknown to it) before anything runs, and the SDK's client fails
 * the call with that HTTP error. mcpTools read every transport error as a call that may have run: a changing
 * call's turn stopped for a person, "may have run: … no answer came back", though the server refused the
 * request unread. Now a 4xx answer to the POST (the server refused it before running it) is a tool error the
 * model sees (`remote-closed`, saying the server refused it and why); a 5xx, or a POST that failed with no
 * answer, may have run, as before.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { z } from "zod";
import { deskModel } from "./fixtures/desk.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close().catch(() => {});
});

/**
 * A real MCP server over Streamable HTTP on `port` (0: any), with sessions; `status` answers every POST with
 * that HTTP status instead, as a proxy in front of it might. `calls` counts the calls it ran.
 */
async function start(port = 0, status?: number) {
  const calls: string[] = [];
  const server = new Server({ name: "hunt45-http", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("refund", true), tool45("peek")] }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push(request.params.name);
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true });
  await server.connect(transport);
  const http: HttpServer = createServer((req, res) => {
    if (status !== undefined) return void res.writeHead(status).end("refused");
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }).then(() => server.close());
  open.push(close);
  const address = http.address();
  return { port: typeof address === "object" && address ? address.port : 0, calls, close };
}

/** A client connected to a server that then restarts on the same port (or is replaced by one answering `status`). */
async function restarted(status?: number) {
  const first = await start();
  const client = new Client({ name: "hunt45", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${first.port}/mcp`)));
  open.unshift(() => client.close());
  const tools = await mcpTools(client);
  await first.close();
  const second = await start(first.port, status);
  // a first request after the restart may meet the socket the old server closed ("fetch failed"): it is the one
  // that meets it, not a call's
  await client.ping().catch(() => {});
  return { client, tools, second };
}

describe("a server over Streamable HTTP that restarted (the client's session unknown to it)", () => {
  it("a changing call refused with 400 (its session unknown): a tool error the model sees, the turn goes on; nothing ran", async () => {
    const { tools, second } = await restarted();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*refused the call of \w+ before running it \(HTTP 400/);
    expect(lm.requests).toHaveLength(2);
    expect(second.calls).toEqual([]);
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
  }, 30_000);

  it("a reading call refused with 400 (its session unknown): remote-closed, saying the server refused it", async () => {
    const { tools } = await restarted();
    await expect(tools[1]!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-closed",
      message: expect.stringMatching(/refused the call of \w+ before running it \(HTTP 400/),
    });
  }, 30_000);

  it("a changing call answered 500 may have run: its turn stops for a person, as before", async () => {
    const { tools } = await restarted(500);
    await expect(tools[0]!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/refund may have run/),
    });
  }, 30_000);
});
