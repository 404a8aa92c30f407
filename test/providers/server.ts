/**
 * A local HTTP server that answers in a provider's wire format, so the real
 * `openai` and `@anthropic-ai/sdk` clients can be tested end to end. It
 * records every request (path, headers, parsed body) for the tests to check.
 */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, expect } from "vitest";
import { ProviderError } from "../../src/errors.js";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
export const fixtureJson = (name: string): unknown => JSON.parse(fixture(name));

/** The `data:` payloads of an SSE fixture, parsed (`[DONE]` left out). */
export const sseData = (text: string): Record<string, unknown>[] =>
  text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>);

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type Reply =
  | { json: unknown; status?: number; headers?: Record<string, string> }
  /**
   * Events are written one by one (`gapMs` apart, else a tick); with `hang`, the response stays open after them; with
   * `reset`, the connection is dropped after them.
   */
  | { sse: string; status?: number; hang?: boolean; reset?: boolean; gapMs?: number }
  /** A JSON response whose body stops after `partial` (its length promised whole): the connection is dropped mid-body; with `stall`, it stays open, silent. */
  | { partial: string; stall?: boolean }
  /** A body sent as it is, with its own content type (an HTML page, plain text). */
  | { raw: string; status?: number; headers?: Record<string, string> }
  /** Never answers. */
  | { hang: true }
  /** The reply this request gets, decided by looking at it (a server that checks what it is sent, as the real APIs do). */
  | { by: (request: Recorded) => Reply };

export interface MockServer {
  url: string;
  requests: Recorded[];
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
}

const tick = (ms = 1): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function writeSse(res: ServerResponse, text: string, end: "end" | "hang" | "reset", gapMs = 1): Promise<void> {
  for (const event of text.split(/(?<=\n\n)/)) {
    res.write(event);
    // Let each event leave as its own chunk, as a real server's would.
    await tick(gapMs);
  }
  if (end === "end") res.end();
  else if (end === "reset") res.socket?.destroy();
}

export async function mockServer(): Promise<MockServer> {
  const requests: Recorded[] = [];
  const queue: Reply[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const recorded: Recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: raw ? JSON.parse(raw) : {} };
      requests.push(recorded);
      let reply = queue.shift();
      while (reply !== undefined && "by" in reply) reply = reply.by(recorded);
      if (reply === undefined) {
        res.writeHead(418, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { type: "mock_error", message: "the mock server had no reply queued" } }));
      } else if ("json" in reply) {
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.json));
      } else if ("sse" in reply) {
        res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        void writeSse(res, reply.sse, reply.reset === true ? "reset" : reply.hang === true ? "hang" : "end", reply.gapMs);
      } else if ("raw" in reply) {
        res.writeHead(reply.status ?? 200, { "content-type": "text/html", ...reply.headers });
        res.end(reply.raw);
      } else if ("partial" in reply) {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(reply.partial) + 100) });
        res.write(reply.partial);
        if (reply.stall !== true) void tick().then(() => res.socket?.destroy());
      }
      // { hang: true }: no answer at all.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
/**
 * A mock server made before each test of the file and closed after it,
 * handed to `set` as each test begins.
 *
 * @example
 * let server: MockServer;
 * eachTestServer((s) => (server = s));
 */
export function eachTestServer(set: (server: MockServer) => void): void {
  let server: MockServer | undefined;
  beforeEach(async () => {
    server = await mockServer();
    set(server);
  });
  afterEach(async () => {
    await server?.close();
  });
}

export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The ProviderError a call rejects with (fails the test when it resolves or throws something else). */
export async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const e: unknown = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}
