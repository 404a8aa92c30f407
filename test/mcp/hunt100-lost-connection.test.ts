/**
 * Hunt 100: a reading call whose connection to its MCP server is lost while it waits (the server's process
 * SIGKILLed over stdio; an HTTP server whose connections are cut as it goes away). It failed with the
 * transport's bare error: the SDK's McpError "Connection closed" (code -32000, the code servers answer their own
 * errors with), or fetch's `TypeError: fetch failed`, with no functai code. Now it is `remote-closed`, naming the
 * tool and saying the connection was lost (a tool error the model sees, as before). A changing call so cut still
 * stops its turn for a person (guard).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { overHttp } from "./fixtures/hunt100-http.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/**
 * A server over Streamable HTTP (answering with event streams) listing `refund` (changing) and `peek` (reading),
 * whose calls never answer; `cut()` ends every connection and stops listening, as a server that died.
 * `called` settles when the first call reaches it.
 */
async function dyingServer() {
  let reached = (): void => undefined;
  const called = new Promise<void>((resolve) => (reached = resolve));
  const server = new Server({ name: "hunt100", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("refund", true), tool45("peek")] }) as never);
  server.setRequestHandler(CallToolRequestSchema, async () => {
    reached();
    return await new Promise<never>(() => {});
  });
  const { client, http } = await overHttp(server);
  const closed = new Promise<void>((resolve) => http.once("close", () => resolve()));
  const cut = () => {
    http.close();
    http.closeAllConnections();
  };
  closing.push(async () => {
    cut();
    await closed;
    await client.close().catch(() => {});
    await server.close().catch(() => {});
  });
  return { client, called, cut };
}

describe("a server over Streamable HTTP that goes away during a call", () => {
  it("a changing call: its turn stops for a person (turn-unfinished) (guard); the model is asked once", async () => {
    const s = await dyingServer();
    const desk = await makeDesk(s.client);
    const lm = deskModel({ name: "refund", input: {} });
    const sent = desk
      .conversation("sam", { store: memoryStore(), lm })
      .send("Refund it.")
      .catch((e: unknown) => e);
    await s.called;
    s.cut();
    expect(await sent).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/refund may have run/) });
    expect(lm.requests).toHaveLength(1);
  }, 30_000);

  it("a reading call: remote-closed, saying the connection was lost", async () => {
    const s = await dyingServer();
    const [, peek] = await mcpTools(s.client);
    const call = peek!.runAsTool({}, ctx45().ctx);
    await s.called;
    s.cut();
    await expect(call).rejects.toMatchObject({ code: "remote-closed", message: expect.stringMatching(/peek/) });
  }, 30_000);
});

describe("a server over stdio SIGKILLed during a reading call", () => {
  it("remote-closed, naming the tool and the closed connection", async () => {
    const s = kept(await hunt45({ tools: [tool45("peek")], hang: ["peek"] }));
    const [peek] = await mcpTools(s.client);
    const call = peek!.runAsTool({}, ctx45().ctx);
    await expect.poll(() => s.logged().length, { timeout: 20_000 }).toBe(1);
    process.kill(s.transport.pid!, "SIGKILL");
    await expect(call).rejects.toMatchObject({
      name: "FunctaiError",
      code: "remote-closed",
      message: expect.stringMatching(/^the MCP tool peek did not finish: the connection to the MCP server was lost .*Connection closed/),
    });
  }, 60_000);
});
