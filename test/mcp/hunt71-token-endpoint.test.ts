/**
 * Hunt 71: the OAuth authorization server failing while a Streamable HTTP call is authorized again. The MCP
 * server answers the POST 401 (its token expired) before its MCP transport sees it; the SDK's transport then asks
 * the token endpoint for a new token, and that fails: down (connection refused), its socket reset, or answering
 * 500/503. The call never reached the MCP server, so a changing tool did not run: it is `remote-auth`, a tool error
 * saying it did not run, never a turn stopped for a person ("may have run").
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { authServer71, type TokenMode } from "./fixtures/hunt71-auth.js";

const kept = closedAfterEach();

describe("the token endpoint fails while a call is authorized again", () => {
  for (const mode of ["down", "reset", 500, 503] as TokenMode[])
    it(`token endpoint ${mode}: remote-auth, the changing tool did not run`, async () => {
      const s = kept(await authServer71([tool45("refund", true)]));
      const [refund] = await mcpTools(s.client, { timeout: 20_000 });
      s.expire();
      await s.token(mode);
      const error = await refund!.runAsTool({}, ctx45().ctx).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "FunctaiError", code: "remote-auth" });
      expect((error as Error).message).toMatch(/refund.*did not run/);
      expect(s.calls).toEqual([]);
      if (mode !== "down") expect(s.tokenAsks()).toBeGreaterThan(0);
    }, 40_000);

  it("in a conversation: the model is told, the turn is not stopped for a person", async () => {
    const s = kept(await authServer71([tool45("refund", true)]));
    const tools = await mcpTools(s.client, { timeout: 20_000 });
    s.expire();
    await s.token("down");
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Refund it.")).toMatch(/did not run/);
    expect(lm.requests).toHaveLength(2);
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
    expect(s.calls).toEqual([]);
  }, 40_000);

  it("the token endpoint working again: the call is authorized and runs (guard: the fixture's token flow works)", async () => {
    const s = kept(await authServer71([tool45("refund", true)]));
    const [refund] = await mcpTools(s.client, { timeout: 20_000 });
    s.expire();
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
    expect(s.calls).toEqual(["refund"]);
  }, 40_000);
});

describe("a Streamable HTTP MCP server that is down when a changing tool is called", () => {
  it("connection refused: remote-closed, the tool did not run (nothing was sent), not a turn stopped for a person", async () => {
    const { createServer } = await import("node:http");
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const { recordingServer } = await import("./fixtures/hunt52-http.js");
    const { server, transport, calls } = await recordingServer("hunt71-down", [tool45("refund", true)]);
    const http = createServer((req, res) => void transport.handleRequest(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as import("node:net").AddressInfo;
    const client = new Client({ name: "hunt71-down-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    kept({ close: async () => void (await client.close().catch(() => {}), await server.close()) });
    const [refund] = await mcpTools(client, { timeout: 20_000 });
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    // a request on a kept-alive socket the client has not yet seen close fails "other side closed" (which may have
    // been sent: rightly in doubt); a ping first uses up any such socket, so the call makes a new connection
    await client.ping().catch(() => {});
    const error = await refund!.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, String((error as Error).message)).toMatchObject({ name: "FunctaiError", code: "remote-closed" });
    expect((error as Error).message).toMatch(/refund was not sent.*ECONNREFUSED.*did not run/);
    expect(calls).toEqual([]);
  }, 40_000);
});

describe("the token endpoint fails while the tools are listed", () => {
  for (const mode of ["down", "reset"] as TokenMode[])
    it(`token endpoint ${mode}: mcpTools fails remote-auth, saying a new token could not be got (not remote-protocol)`, async () => {
      const s = kept(await authServer71([tool45("refund", true)]));
      s.expire();
      await s.token(mode);
      const error = await mcpTools(s.client, { timeout: 20_000 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "FunctaiError", code: "remote-auth" });
      expect((error as Error).message).toMatch(/could not be listed: .*new one could not be got/);
    }, 40_000);
});
