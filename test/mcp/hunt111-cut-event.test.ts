/**
 * Hunt 111: over Streamable HTTP a call's stream is read no further than 16,000,000 bytes an event, and a changing
 * call cut there was `tool-failed`, "it ran … do not call it again", whatever the event cut was. An event may be a
 * notification the server sends while the tool runs (a log line): the call is then cancelled mid-run, so whether it
 * acted is not known. Now such a call is in doubt (its turn stops for a person, never recorded as done); only an
 * event whose top-level keys show it is the call's answer keeps "it ran". A real MCP server (the SDK's `Server`),
 * whose answers are written as the SDK writes them: `result` first, `id` last (never reached before the cut).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { overHttp } from "./fixtures/hunt100-http.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** Past the bound of one event (16,000,000 bytes). */
const HUGE = "x".repeat(17_000_000);

/**
 * A server over Streamable HTTP (event streams) listing `loud` (changing) and `peek` (reading), each sending a log
 * message of 17 MB before its small answer, and `export` (changing), answering with a text of 17 MB.
 */
async function cuttingServer() {
  const server = new Server({ name: "hunt111", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  const tools = [tool45("loud", true), tool45("peek"), tool45("export", true)];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    if (name === "export") return { content: [{ type: "text", text: HUGE }] };
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: HUGE } });
    return { content: [{ type: "text", text: `ran ${name}` }] };
  });
  const { client, http } = await overHttp(server);
  const close = async () => {
    await client.close().catch(() => {});
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await server.close();
  };
  return kept({ client, close });
}

const failure = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: { name?: string; code?: string; message?: string }) => ({ name: e.name, code: e.code, message: e.message }),
  );

describe("an event past the bound in a call's stream (Streamable HTTP)", () => {
  it("a log message before a changing call's answer: its turn stops for a person, the call unfinished, the model not told it ran", async () => {
    const s = await cuttingServer();
    const desk = await makeDesk(s.client, { timeout: 60_000, include: ["loud"] });
    const lm = deskModel({ name: "loud", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await failure(chat.send("Do it."))).toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/loud may have run: .*more than 16,000,000 bytes.*Say what it returned, or ask for a rerun/),
    });
    expect(lm.requests).toHaveLength(1);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((t) => t.name)).toEqual(["loud"]);
  }, 120_000);

  it("a changing call's answer itself past the bound (its id not reached): the model is told it ran (guard)", async () => {
    const s = await cuttingServer();
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    const exporter = tools.find((t) => t.name === "export")!;
    expect(await failure(exporter.runAsTool({}, ctx45().ctx))).toMatchObject({
      name: "FunctaiError",
      code: "tool-failed",
      message: expect.stringMatching(/^the MCP tool export ran, .*more than 16,000,000 bytes.*It did run: do not call it again/),
    });
  }, 120_000);

  it("a log message before a reading call's answer: a tool error the model sees (guard)", async () => {
    const s = await cuttingServer();
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    const peek = tools.find((t) => t.name === "peek")!;
    expect(await failure(peek.runAsTool({}, ctx45().ctx))).toMatchObject({
      name: "FunctaiError",
      code: "tool-failed",
      message: expect.stringMatching(/^the MCP tool peek's answer was more than 16,000,000 bytes/),
    });
  }, 120_000);
});
