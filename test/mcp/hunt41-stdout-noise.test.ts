/**
 * Hunt 41, beside hunt41-unreadable-message: a server that writes log lines
 * to its stdout while a call runs (plain text, or JSON lines from a logger
 * such as pino), as many stdio servers do by mistake. The SDK drops each such
 * line and goes on reading. These lines answer no request: a call that
 * waits when one comes still gets the server's answer (a changing call is
 * not put in doubt by them, nor a reading one failed).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";

/** A real SDK server over stdio whose `refund` (changing) and `peek` (reading) write log lines to stdout, then answer. */
const SERVER = `
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "noisy", version: "1.0.0" }, { capabilities: { tools: {} } });
const tool = (name, readOnlyHint) => ({ name, description: name, inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool("refund", false), tool("peek", true)] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  process.stdout.write("refunding order A-1042...\\n");
  process.stdout.write(JSON.stringify({ level: 30, time: Date.now(), msg: "calling " + request.params.name }) + "\\n");
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "log", params: 5 }) + "\\n");
  await new Promise((r) => setTimeout(r, 200));
  return { content: [{ type: "text", text: "did " + request.params.name }] };
});
await server.connect(new StdioServerTransport());
`;

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function noisy() {
  const transport = new StdioClientTransport({ command: process.execPath, args: ["--input-type=module", "-e", SERVER], stderr: "inherit" });
  const client = new Client({ name: "hunt41-test", version: "1.0.0" });
  await client.connect(transport);
  open.push(client);
  return client;
}

describe("log lines on a server's stdout while a call waits", () => {
  it("are not the call's answer: changing and reading calls get the server's answer", async () => {
    const tools = await mcpTools(await noisy(), { timeout: 20_000 });
    const ctx = () => ({ signal: new AbortController().signal, idempotencyKey: "k1", show: () => {} }) as never;
    expect(await tools.find((t) => t.name === "refund")!.runAsTool({}, ctx())).toBe("did refund");
    expect(await tools.find((t) => t.name === "peek")!.runAsTool({}, ctx())).toBe("did peek");
  }, 40_000);
});
