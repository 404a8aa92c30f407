/**
 * Hunt 100: a stopped turn while its MCP call waits for the server's tools to be listed again. Once the server
 * says its tools changed (notifications/tools/list_changed), each call looks its tool up again before it is sent;
 * that listing did not heed the call's signal: a call stopped while the server was slow to list its tools waited
 * for the listing (up to its timeout, 60 s by default), and the engine gave up on it only after its grace. Now the
 * call stops waiting when its signal aborts, and is never sent.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { overHttp } from "./fixtures/hunt100-http.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/**
 * A server over Streamable HTTP listing `flip` and `refund` (both changing). A call of `flip` says the tools
 * changed (before it answers, on the call's stream); every listing after it waits until the server is closed.
 * `log` holds each request it got.
 */
async function slowRelisting() {
  const log: string[] = [];
  let flipped = false;
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = new Server({ name: "hunt100", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    log.push("tools/list");
    if (flipped) await released;
    return { tools: [tool45("flip", true), tool45("refund", true)] } as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    log.push(`call ${request.params.name}`);
    if (request.params.name === "flip") {
      flipped = true;
      // on the call's own stream, before its answer: the client hears it before the call is answered
      await extra.sendNotification({ method: "notifications/tools/list_changed" });
    }
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  const { client, http } = await overHttp(server);
  closing.push(async () => {
    release();
    await client.close().catch(() => {});
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await server.close();
  });
  return { client, log };
}

describe("a call stopped while the server's tools are listed again", () => {
  it("stops waiting when its signal aborts (turn-aborted), and is never sent", async () => {
    const { client, log } = await slowRelisting();
    const tools = await mcpTools(client);
    const [flip, refund] = tools;
    await flip!.runAsTool({}, ctx45().ctx);
    const stop = new AbortController();
    const call = refund!.runAsTool({}, ctx45(stop.signal).ctx);
    await expect.poll(() => log.filter((l) => l === "tools/list").length, { timeout: 20_000 }).toBe(2);
    stop.abort();
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    expect(log).not.toContain("call refund");
  }, 30_000);
});
