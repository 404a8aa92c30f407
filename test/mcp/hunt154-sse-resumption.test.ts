/**
 * Hunt 154: over the old SSE transport (every answer comes on its one stream of events), a stream whose events have
 * ids, cut while a call waits. Hunt 135 failed such a call at once when no event had an id, and left a stream with
 * ids to its EventSource, which asks to go on from the last id (a GET with Last-Event-ID) as it opens the stream
 * again. But the SDK's transport gives its EventSource a fetch that sends the GET with headers of its own in place of
 * the EventSource's: Last-Event-ID is left out, the server opens a new session, and the answer cannot come. The call
 * waited out its whole timeout. Now it fails at once, as on a stream without ids: a changing call's turn stops for a
 * person (the server took it: it may have run), a reading call is `remote-closed`, each saying why the stream cannot
 * be resumed. The GET the SDK reopens the stream with is pinned too: once it carries Last-Event-ID, a stream with ids
 * can be left to it again.
 *
 * The server is the SDK's (`SSEServerTransport`, one `Server` per stream, over node:http in this process), each
 * message event written with an id (the SDK's sends none; other servers do) and a retry of 10 ms (the EventSource's
 * wait before it reconnects); each call cuts the stream it came on and hangs. Each call's timeout is far past the
 * test's own.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { sseSessions } from "./fixtures/sse-sessions.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** Has each message event written on `stream` carry an id (and a retry of 10 ms). */
function withIds(stream: ServerResponse): void {
  let id = 0;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === "string" && chunk.startsWith("event: message\n")
      ? write(`id: ${++id}\nretry: 10\n${chunk}`, ...rest)
      : write(chunk, ...rest)) as typeof stream.write;
}

/** The SDK's server over its SSE transport, listing `peek` (reading) and `refund` (changing), each call cutting its stream; `streams`: the headers of each GET opening one. */
async function cuttingSseServer() {
  const streams: IncomingHttpHeaders[] = [];
  const connected = await sseSessions("hunt154-sse-test", (stream, request) => {
    streams.push(request.headers);
    withIds(stream);
    const server = new Server({ name: "hunt154-sse", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("peek"), tool45("refund", true)] }) as never);
    server.setRequestHandler(CallToolRequestSchema, async () => {
      stream.destroy();
      return await new Promise<never>(() => {});
    });
    return server;
  });
  return { ...connected, streams };
}

/** What a call of `tool` rejected with. */
const rejection = (tool: { runAsTool(input: unknown, ctx: never): Promise<unknown> }) =>
  tool.runAsTool({}, ctx45().ctx).then(
    () => undefined,
    (e: unknown) => e,
  );

const CANNOT_RESUME =
  /ended before its answer, and it cannot be resumed \(cut: .*\): its events had ids, but the MCP SDK's SSE transport opens it again without Last-Event-ID, a new session, so no answer will come/;

describe("over the SSE transport, a stream whose events have ids, cut while a call waits", () => {
  it("a reading call is remote-closed at once, saying the stream cannot be resumed", async () => {
    const [peek] = await mcpTools(kept(await cuttingSseServer()).client, { timeout: TIMEOUT });
    const error = await rejection(peek!);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-closed" });
    expect((error as Error).message).toMatch(/^the MCP tool peek did not finish: the stream of events the MCP server's answer was to come on /);
    expect((error as Error).message).toMatch(CANNOT_RESUME);
  }, 30_000);

  it("a changing call's turn stops for a person at once (the server took it: it may have run)", async () => {
    const [, refund] = await mcpTools(kept(await cuttingSseServer()).client, { timeout: TIMEOUT });
    const error = await rejection(refund!);
    expect(error).toMatchObject({ name: "NeedsPerson" });
    expect((error as Error).message).toMatch(/^the MCP tool refund may have run: /);
    expect((error as Error).message).toMatch(CANNOT_RESUME);
  }, 30_000);

  it("the SDK opens the stream again with no Last-Event-ID, its events' ids read (why no answer can come)", async () => {
    const s = kept(await cuttingSseServer());
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    await rejection(peek!);
    for (const deadline = Date.now() + 10_000; s.streams.length < 2 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(s.streams).toHaveLength(2);
    expect(s.streams[1]!["last-event-id"]).toBeUndefined();
  }, 30_000);
});
