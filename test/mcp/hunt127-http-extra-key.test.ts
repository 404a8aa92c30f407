/**
 * Hunt 127: over Streamable HTTP, an answer to a call with a top-level key JSON-RPC does not name
 * (`{ jsonrpc, id, result, extra }`), as a server of another make may write it. Sent as the one event of the POST's
 * stream, the SDK's transport dropped it (told only to onerror) and the call waited out its whole timeout; sent as
 * a JSON answer, the POST failed with the SDK's bare ZodError: a changing call's turn stopped for a person saying
 * "no answer came back" (one did), a reading call was a tool error with no code, the ZodError's JSON dump its words.
 * Now, as over stdio, it is the call's answer that cannot be read: a changing call "may have run: the MCP server's
 * answer could not be read", a reading call `remote-protocol`, each naming the key.
 */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { listenAndConnect, recordingServer } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

/**
 * The SDK's server over Streamable HTTP (JSON answers), except that each tools/call POST is answered with `line`
 * (`$ID` its id), as JSON or (`stream`) as the one event of a stream, as a server of another make writes it.
 */
async function httpServer(tools: unknown[], line: string, stream = false) {
  const { server, transport, calls } = await recordingServer("hunt127-http", tools);
  const http = createServer((req, res) => {
    if (req.method !== "POST") return void transport.handleRequest(req, res);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown; method?: unknown; params?: { name?: string } };
      if (body.method !== "tools/call") return void transport.handleRequest(req, res, body);
      calls.push(body.params?.name ?? "");
      const answer = line.replace("$ID", JSON.stringify(body.id));
      res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
      res.end(stream ? `event: message\ndata: ${answer}\n\n` : answer);
    });
  });
  const { client, close } = await listenAndConnect(http, server, "hunt127-http-test");
  return { client, calls, close };
}

const EXTRA = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]},"extra":1}';
const TIMEOUT = 600_000;

describe("over Streamable HTTP, an answer with a top-level key JSON-RPC does not name", () => {
  it("to a changing call: its turn stops for a person, saying the server's answer could not be read (not that none came)", async () => {
    const { client, calls } = kept(await httpServer([tool45("refund", true)], EXTRA));
    const desk = await makeDesk(client, { timeout: TIMEOUT });
    const chat = desk.conversation("sam", { store: memoryStore(), lm: deskModel({ name: "refund", input: {} }) });
    const e = await chat.send("Go.").catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/refund may have run: .*could not be read .*"extra"/) });
    expect(calls).toEqual(["refund"]);
  }, 30_000);

  for (const stream of [false, true])
    it(`to a reading call (${stream ? "an event of its stream" : "a JSON answer"}): a tool error (remote-protocol) naming the key`, async () => {
      const { client } = kept(await httpServer([tool45("peek")], EXTRA, stream));
      const [peek] = await mcpTools(client, { timeout: TIMEOUT });
      await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
        code: "remote-protocol",
        message: expect.stringMatching(/peek could not be read: it has the key "extra" beside/),
      });
    }, 30_000);
});
