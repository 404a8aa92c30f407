/**
 * Hunt 135: over the old SSE transport (every answer comes on its one stream of events), a call waiting when that
 * stream ends: its connection cut, or the server ending it. The SDK's SSE server sends no event ids, and a stream
 * opened again is a new session (a new endpoint; the old one's answers go nowhere): the answer can no longer come.
 * The SDK's transport tells only onerror ("SSE error: …"), its EventSource opens a new stream after a few seconds,
 * and the call waited out its whole timeout, to end as the SDK's bare "Request timed out". Now it fails at once: a
 * changing call's turn stops for a person (the server took it: it may have run), a reading call is `remote-closed`,
 * saying the stream of its answer ended.
 *
 * The server is the SDK's (`SSEServerTransport`, one `Server` per stream, over node:http in this process); each
 * call `how`s the stream it came with (`destroy`: its connection cut; `end`: ended) and hangs. Each call's timeout is
 * far past the test's own.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe } from "vitest";
import { endedStreamCases } from "./fixtures/ended-streams.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { tool45 } from "./fixtures/hunt45.js";
import { sseSessions } from "./fixtures/sse-sessions.js";

const kept = closedAfterEach();

/** The SDK's server over its SSE transport, listing `peek` (reading) and `refund` (changing), each call ending its stream (`how`). */
function endingServer(how: "destroy" | "end") {
  return sseSessions("hunt135-sse-ends-test", (stream) => {
    const server = new Server({ name: "hunt135-sse-ends", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("peek"), tool45("refund", true)] }) as never);
    server.setRequestHandler(CallToolRequestSchema, async () => {
      stream[how]();
      return await new Promise<never>(() => {});
    });
    return server;
  });
}

describe("over the SSE transport, a call whose stream of answers ends while it waits", () => {
  endedStreamCases(async (how) => kept(await endingServer(how)), "it may have run");
});
