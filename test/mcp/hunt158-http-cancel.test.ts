/**
 * Hunt 158: over Streamable HTTP, a call whose turn stops (its signal aborts) while the server runs it: the server is
 * told (notifications/cancelled, which the SDK's server turns into its handler's signal aborting) and the call ends
 * at once, saying it was stopped (a guard: hunt 52 pinned this over stdio; over HTTP each message is a POST of its own,
 * watched by functai's wrapped fetch, which must let the notification through).
 *
 * The server is the SDK's (`Server` on its `StreamableHTTPServerTransport`, streams of events, over node:http in this
 * process); its handler waits until its signal aborts. The call's timeout is far past the test's own.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { listenAndConnect } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

/** The SDK's server listing `refund` (changing), each call waiting until the server is told it was cancelled. */
async function waitingServer() {
  const server = new Server({ name: "hunt158-cancel", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("refund", true)] }) as never);
  let began = (): void => undefined;
  const running = new Promise<void>((resolve) => (began = resolve));
  let told = (_why: unknown): void => undefined;
  const cancelled = new Promise<unknown>((resolve) => (told = resolve));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    began();
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
    told(extra.signal.reason);
    return { content: [{ type: "text", text: "too late" }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const http = createServer((req, res) => void transport.handleRequest(req, res));
  return { ...(await listenAndConnect(http, server, "hunt158-cancel-test")), running, cancelled };
}

it("a call whose turn stops is cancelled on the server (notifications/cancelled), and ends at once (guard)", async () => {
  const s = kept(await waitingServer());
  const [refund] = await mcpTools(s.client, { timeout: 600_000 });
  const stop = new AbortController();
  const call = refund!.runAsTool({}, ctx45(stop.signal).ctx).then(
    () => "resolved",
    (e: unknown) => e,
  );
  await s.running;
  stop.abort(new Error("the turn stopped"));
  expect(await call).toMatchObject({ message: expect.stringMatching(/the turn stopped/) });
  // the server's handler was told: its signal aborted, with the reason the client sent
  expect(String(await s.cancelled)).toMatch(/the turn stopped/);
}, 30_000);
