/**
 * Hunt 154: over Streamable HTTP, an answer to a call that names another id than the call's request: the answer to
 * its POST (the POST's JSON answer, or on the stream of events it was answered with) whose `id` is not the request's,
 * as a gateway that renumbers requests, and numbers one back wrong, sends it. The SDK's Client reads an answer as the
 * answer to the request its id names: to none ("a response for an unknown message ID", told to onerror), and the call
 * waited out its whole timeout, then said "no answer came back" (the server had answered); or to another call waiting,
 * which took it as its own result: a changing call recorded as run with another call's result. Now the answer that
 * came for a call's POST is that call's, unreadable: it fails at once (a changing call's turn stops for a person, it
 * may have run; a reading call is `remote-protocol`), and the call it names, waiting, is not given it (it fails too,
 * saying why). An answer whose id names the request as the SDK reads ids ("2" for 2) is still read (guard).
 *
 * The server is the SDK's (`Server` on its `StreamableHTTPServerTransport`, over node:http in this process), answering
 * with JSON or with streams of events; the id of its answers to calls is rewritten on the wire as each case says.
 * Each call's timeout is far past the test's own, so a call that waits for it fails the test.
 */
import { randomUUID } from "node:crypto";
import { type ServerResponse, createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, settled, tool45 } from "./fixtures/hunt45.js";
import { listenAndConnect } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/**
 * What the id of the answer to a call of `name` sent with `id` is written as (JSON text), given the ids of the calls
 * that came by then, by tool name (asked as the answer is written); `undefined`: as it is.
 */
type Renaming = (name: string, id: number, calls: ReadonlyMap<string, number>) => string | undefined;

/** Has what `res` writes name what `to` says (JSON text) where it named the request `id`, its length left unsaid. */
function renamed(res: ServerResponse, id: number, to: () => string | undefined): void {
  const rename = (chunk: unknown) => {
    const text = typeof chunk === "string" || chunk instanceof Uint8Array ? Buffer.from(chunk).toString() : undefined;
    const name = text?.includes(`"id":${id}}`) ? to() : undefined;
    return name === undefined ? chunk : text!.replace(`"id":${id}}`, `"id":${name}}`);
  };
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, headers?: unknown) => {
    if (headers !== null && typeof headers === "object" && !Array.isArray(headers)) delete (headers as Record<string, unknown>)["content-length"];
    return writeHead(status, headers);
  }) as typeof res.writeHead;
  res.write = ((chunk: unknown, ...rest: unknown[]) => write(rename(chunk), ...rest)) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => end(rename(chunk), ...rest)) as typeof res.end;
}

/**
 * The SDK's server listing `peek` (reading) and `refund` (changing), each call answered "ran <name>" once both have
 * come when `together` (else at once), answering with JSON (`json`) or streams of events, the ids of its answers to
 * calls written as `renaming` says. `ran`: the calls it ran.
 */
async function renamingServer(json: boolean, renaming: Renaming, together = false) {
  const server = new Server({ name: "hunt154-misnamed", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("peek"), tool45("refund", true)] }) as never);
  const calls = new Map<string, number>();
  let both = (): void => undefined;
  const bothCame = new Promise<void>((resolve) => (both = resolve));
  const ran: string[] = [];
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    ran.push(request.params.name);
    if (together) await bothCame;
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: json });
  await server.connect(transport);
  const http = createServer(async (req, res) => {
    if (req.method !== "POST") return void transport.handleRequest(req, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { id?: number; method?: string; params?: { name?: string } };
    if (body.method === "tools/call" && typeof body.id === "number" && typeof body.params?.name === "string") {
      calls.set(body.params.name, body.id);
      if (calls.size === 2) both();
      const { id, params } = body;
      renamed(res, id, () => renaming(params.name!, id, calls));
    }
    void transport.handleRequest(req, res, body);
  });
  return { ...(await listenAndConnect(http, server, "hunt154-misnamed-test")), ran };
}

for (const json of [true, false])
  describe(`an answer to a call naming another id (${json ? "the POST's JSON answer" : "on the POST's stream of events"})`, () => {
    it("a reading call is remote-protocol at once, saying what its answer names", async () => {
      const [peek] = await mcpTools(kept(await renamingServer(json, (_, id) => String(id + 1000))).client, { timeout: TIMEOUT });
      const { error } = await settled(peek!);
      expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
      expect(error!.message).toMatch(
        /^the MCP server's answer to peek could not be read: it names the id \d{4}, not \d, the id of the request it came as the answer to$/,
      );
    }, 30_000);

    it("a changing call's turn stops for a person at once (the server answered it: it ran)", async () => {
      const s = kept(await renamingServer(json, (_, id) => String(id + 1000)));
      const [, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
      const { error } = await settled(refund!);
      expect(error).toMatchObject({ name: "NeedsPerson" });
      expect(error!.message).toMatch(
        /^the MCP tool refund may have run: the MCP server's answer could not be read \(it names the id \d{4}, not \d, /,
      );
      expect(s.ran).toEqual(["refund"]);
    }, 30_000);

    it("naming the other call waiting: neither takes it as its own (the changing call is not given the reading call's result)", async () => {
      // the answer to peek names refund's request; refund's, peek's
      const swap: Renaming = (name, _, calls) => String(calls.get(name === "peek" ? "refund" : "peek"));
      const s = kept(await renamingServer(json, swap, true));
      const [peek, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
      const [read, changed] = await Promise.all([settled(peek!), settled(refund!)]);
      expect(read.error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
      expect(read.error!.message).toMatch(/^the MCP server's answer to peek could not be read: /);
      expect(changed.error).toMatchObject({ name: "NeedsPerson" });
      expect(changed.error!.message).toMatch(/^the MCP tool refund may have run: the MCP server's answer could not be read \(/);
      expect(s.ran.sort()).toEqual(["peek", "refund"]);
    }, 30_000);

    it('an id naming the request as the SDK reads ids ("2" for 2) is read (guard)', async () => {
      const [peek, refund] = await mcpTools(kept(await renamingServer(json, (_, id) => JSON.stringify(String(id)))).client, { timeout: TIMEOUT });
      expect(await peek!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
      expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
    }, 30_000);
  });
