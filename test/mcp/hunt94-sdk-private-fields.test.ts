/**
 * Hunt 94: adapters/mcp/wire.ts reaches under the SDK's typed API. It wraps the HTTP transports' `_fetch` (found by
 * their `_url`) to bound what is read of an answer and to follow each POST; it reopens the Streamable HTTP
 * transport's GET stream through that fetch with `_abortController`, `_startOrAuthSse` and `_scheduleReconnection`;
 * and it waits for the requests in the client's `_responseHandlers` first. Where one of them is gone it does
 * nothing, silently: an SDK release that renamed one would leave answers unbounded and requests given up for a
 * token sendable later, with every other test of the adapter's happy paths still passing. These tests build the
 * SDK's own classes and fail naming the field that is no longer what wire.ts takes it to be. Likewise lines.ts (hunt
 * 127): the stdio transport's `_readBuffer`, whose `readMessage` it taps and whose `_buffer` it reads the line from;
 * and (hunt 133) the SSE transport's `_eventSource`, whose `onmessage` it taps.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

type Fields = Record<string, unknown>;
type Wanted = Record<string, [what: string, holds: (value: unknown) => boolean]>;

/** Each field of `o` (the SDK's `name`) that is not there or no longer holds what wire.ts needs, named with that need. */
const gone = (name: string, o: object, wanted: Wanted): string[] =>
  Object.entries(wanted)
    .filter(([field, [, holds]]) => !(field in o) || !holds((o as Fields)[field]))
    .map(([field, [what]]) => `${name}.${field} is no longer ${what}`);

const isFunction = (v: unknown) => typeof v === "function";
const URL_ = new URL("http://127.0.0.1:9/mcp");
/** What wire.ts finds an HTTP transport by, and wraps. */
const httpFields: Wanted = {
  _url: ["the server's URL", (v) => v === URL_],
  _fetch: ["the fetch its requests go through (undefined: none given)", (v) => v === undefined || isFunction(v)],
};

describe("the SDK's private fields adapters/mcp/wire.ts relies on", () => {
  it("StreamableHTTPClientTransport: _url, _fetch, _abortController, _startOrAuthSse, _scheduleReconnection", async () => {
    const t = new StreamableHTTPClientTransport(URL_);
    expect(
      gone("StreamableHTTPClientTransport", t, {
        ...httpFields,
        _startOrAuthSse: ["a method opening its GET stream", isFunction],
        _scheduleReconnection: ["a method opening a stream again after its backoff", isFunction],
      }),
    ).toEqual([]);
    await t.start();
    expect(
      gone("StreamableHTTPClientTransport", t, {
        _abortController: ["the AbortController set by start()", (v) => v instanceof AbortController && !v.signal.aborted],
      }),
    ).toEqual([]);
    const signal = ((t as unknown as Fields)._abortController as AbortController).signal;
    // a fetch set in `_fetch` once made is the one the GET stream and each POST go through, with that signal
    const sent: RequestInit[] = [];
    (t as unknown as Fields)._fetch = async (_url: unknown, init: RequestInit) => {
      sent.push(init);
      return new Response(null, { status: init.method === "GET" ? 405 : 202 });
    };
    await (t as unknown as { _startOrAuthSse(options: object): Promise<void> })._startOrAuthSse({ resumptionToken: undefined });
    await t.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
    expect(
      sent.map((init) => [init.method, init.signal === signal, init.body]),
      "StreamableHTTPClientTransport._fetch or _abortController is no longer what its requests go through (a POST's body: its message as JSON text)",
    ).toEqual([
      ["GET", true, undefined],
      ["POST", true, JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } })],
    ]);
    await t.close();
  });

  it("SSEClientTransport: _url, _fetch", () => {
    expect(gone("SSEClientTransport", new SSEClientTransport(URL_), httpFields)).toEqual([]);
  });

  it("Client: transport, and _responseHandlers holding each request awaiting its answer by its JSON-RPC id", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new Server({ name: "hunt94", version: "1.0.0" }, { capabilities: { tools: {} } });
    let reached!: (id: unknown) => void;
    const asked = new Promise<unknown>((r) => (reached = r));
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      reached(extra.requestId);
      await answered;
      return { tools: [] };
    });
    const client = new Client({ name: "hunt94", version: "1.0.0" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    expect(
      gone("Client", client, {
        transport: ["the transport it is connected over", (v) => v === clientSide],
        _responseHandlers: ["a Map of the requests awaiting their answer", (v) => v instanceof Map],
      }),
    ).toEqual([]);
    const waiting = () => [...((client as unknown as Fields)._responseHandlers as Map<unknown, unknown>).keys()];
    const listing = client.listTools();
    const id = await asked;
    expect(waiting(), "Client._responseHandlers no longer holds a request awaiting its answer, by its id").toEqual([id]);
    answer();
    await listing;
    expect(waiting(), "Client._responseHandlers still holds a request answered").toEqual([]);
    await client.close();
    await server.close();
  });

  it("SSEClientTransport once started: _eventSource, whose onmessage reads each message event", async () => {
    // (an SSE endpoint that only names where to post: all start() waits for)
    const http = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("event: endpoint\ndata: /messages\n\n");
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const t = new SSEClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`));
    try {
      await t.start();
      const source = (t as unknown as Fields)._eventSource;
      expect(gone("SSEClientTransport", t, { _eventSource: ["its EventSource, once started", (v) => typeof v === "object" && v !== null] })).toEqual(
        [],
      );
      expect(gone("EventSource", source as object, { onmessage: ["the handler of each message event", isFunction] })).toEqual([]);
      const got: unknown[] = [];
      t.onmessage = (m) => got.push(m);
      (source as { onmessage(e: { data: string }): void }).onmessage({ data: '{"jsonrpc":"2.0","method":"x"}' });
      expect(got, "EventSource.onmessage no longer reads a message event's data as the message").toEqual([{ jsonrpc: "2.0", method: "x" }]);
    } finally {
      await t.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });

  it("StdioClientTransport: _readBuffer, with readMessage and _buffer (the bytes not yet read)", () => {
    const t = new StdioClientTransport({ command: "node" }); // (not started: no process)
    const buffer = (t as unknown as Fields)._readBuffer as { append(chunk: Buffer): void } & Fields;
    expect(gone("StdioClientTransport", t, { _readBuffer: ["its ReadBuffer", (v) => typeof v === "object" && v !== null] })).toEqual([]);
    expect(gone("ReadBuffer", buffer, { readMessage: ["a method reading the next line", isFunction] })).toEqual([]);
    buffer.append(Buffer.from('{"jsonrpc":"2.0","method":"x"}\n'));
    const bytes = buffer._buffer;
    expect(bytes instanceof Uint8Array ? new TextDecoder().decode(bytes) : bytes, "ReadBuffer._buffer is no longer the bytes not yet read").toBe(
      '{"jsonrpc":"2.0","method":"x"}\n',
    );
  });
});
