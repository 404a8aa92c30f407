/**
 * Hunt 135: over Streamable HTTP, a call whose answer was to come on the stream of events its POST was answered with
 * (the server took the call, and said something on that stream first: a log line, progress), and the stream ends
 * before the answer: its connection cut (a proxy, a server's socket destroyed), or the server ending it. No event of
 * it had an id, so the SDK cannot resume it (it reopens a stream with `Last-Event-ID` only after an event with one),
 * and it says only "SSE stream disconnected" to onerror, or nothing: the answer can come on no other stream, and the
 * call waited out its whole timeout (60 s by default), to end as the SDK's bare "Request timed out". Now it fails at
 * once: a changing call's turn stops for a person (the server took it: it may have run), a reading call is
 * `remote-closed`, saying the stream of its answer ended. A stream that can be resumed (its server keeps events,
 * each with an id) is left to the SDK, which resumes it and gets the answer (guard).
 *
 * The server is the SDK's (`StreamableHTTPServerTransport` answering with event streams, over node:http in this
 * process); each call logs "working" to the client, then its POST's answer is cut (`destroy`) or ended (`end`) while
 * the tool still runs. Each call's timeout is far past the test's own.
 */
import { randomUUID } from "node:crypto";
import { type ServerResponse, createServer } from "node:http";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { endedStreamCases } from "./fixtures/ended-streams.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { listenAndConnect } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/**
 * A server listing `peek` (reading) and `refund` (changing), whose calls log "working" and hang, and a client that,
 * once it reads "working", has the server `how` the POST's stream: `destroy` (its connection cut) or `end` (ended).
 * `resumable`: the server keeps its events (each with an id): its call closes its stream itself (as the SDK's servers
 * do to have a client poll), and answers "ran <name>" once the client opened it again.
 */
async function cuttingServer(how: "destroy" | "end", resumable = false) {
  const server = new Server({ name: "hunt135-stream", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("peek"), tool45("refund", true)] }) as never);
  let post: ServerResponse | undefined;
  let resumed = (): void => undefined;
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "working" } });
    if (resumable) {
      const reopened = new Promise<void>((resolve) => (resumed = resolve));
      extra.closeSSEStream?.();
      await reopened;
      return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
    }
    return await new Promise<never>(() => {});
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: false,
    ...(resumable && { eventStore: new InMemoryEventStore(), retryInterval: 10 }),
  });
  await server.connect(transport);
  const http = createServer((req, res) => {
    if (req.method === "POST") post = res;
    if (req.method === "GET" && req.headers["last-event-id"] !== undefined) setImmediate(() => resumed());
    void transport.handleRequest(req, res);
  });
  const connected = await listenAndConnect(http, server, "hunt135-stream-test");
  // once the client read "working" (the stream's headers and first event came), the stream is cut or ended
  connected.client.setNotificationHandler(LoggingMessageNotificationSchema, () => void post?.[how]());
  return connected;
}

describe("a call whose answer's stream ends before the answer, and cannot be resumed", () => {
  endedStreamCases(async (how) => kept(await cuttingServer(how)), "the server took it: it may have run");

  it("a stream that can be resumed (its events have ids): the SDK opens it again and the call has its answer (guard)", async () => {
    const s = kept(await cuttingServer("end", true));
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    expect(await peek!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
  }, 30_000);
});
