/**
 * Hunt 45: a server that answers a call with a JSON-RPC error whose code is one the SDK also gives its own
 * failures: -32000 (the SDK's "Connection closed"; JSON-RPC's first code for a server's own errors, written
 * by servers for any failure) and -32001 (the SDK's "Request timed out"). mcpTools read every McpError with
 * those codes as the SDK's own: a changing tool's "insufficient funds" (-32000) stopped its turn for a person,
 * "may have run: …, and no answer came back", though the server answered. Now the server's -32000 answer is a
 * tool error the model sees, as any other error it answers with; its -32001 still stops a changing call's
 * turn for a person (the server says its work timed out: it may have acted), saying the server answered so.
 * The SDK's own closed connection and timeout are read as before.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError, memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const server = async (code: number) =>
  kept(
    await hunt45({
      tools: [tool45("pay", true), tool45("quote")],
      errors: { pay: { code, message: "insufficient funds" }, quote: { code, message: "no quote" } },
    }),
  );

describe("a server's error answer with the SDK's own codes", () => {
  it("-32000 to a changing call: a tool error the model sees, the turn goes on", async () => {
    const { client, logged } = await server(-32000);
    const desk = await makeDesk(client);
    const lm = deskModel({ name: "pay", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Pay.")).toMatch(/^failed: .*insufficient funds/);
    expect(lm.requests).toHaveLength(2);
    expect(logged()).toEqual([{ tool: "pay", keys: [] }]);
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
  }, 30_000);

  it("-32000 to a reading call: a tool error with the server's words", async () => {
    const { client } = await server(-32000);
    const [, quote] = await mcpTools(client);
    await expect(quote!.runAsTool({}, ctx45().ctx)).rejects.toThrow(/no quote/);
  }, 30_000);

  it("-32001 to a changing call: its turn stops for a person, saying the server answered it, not that no answer came", async () => {
    const { client } = await server(-32001);
    const desk = await makeDesk(client);
    const lm = deskModel({ name: "pay", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const e = await chat.send("Pay.").catch((x: unknown) => x);
    expect(e).toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/pay may have run: the MCP server answered .*insufficient funds/),
    });
    expect((e as Error).message).not.toMatch(/no answer came back/);
  }, 30_000);

  it("the SDK's own: a connection that closes mid-call still stops a changing call's turn (no answer came)", async () => {
    const { client, transport, logged } = kept(await hunt45({ tools: [tool45("pay", true)], hang: ["pay"] }));
    const [pay] = await mcpTools(client);
    const call = pay!.runAsTool({}, ctx45().ctx).catch((x: unknown) => x);
    await expect.poll(() => logged(), { timeout: 10_000 }).toEqual([{ tool: "pay", keys: [] }]);
    await transport.close();
    expect(await call).toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/may have run: .*Connection closed, and no answer came back/),
    });
  }, 30_000);

  it("the SDK's own: a call past its timeout still stops a changing call's turn (no answer came)", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("pay", true)], hang: ["pay"] }));
    const [pay] = await mcpTools(client, { timeout: 300 });
    await expect(pay!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/may have run: .*timed out, and no answer came back/),
    });
  }, 30_000);

  it("-32000 to tools/list: remote-protocol (the server answered), not remote-closed", async () => {
    const { client } = kept(await hunt45({ tools: [], listError: { code: -32000, message: "listing is down" } }));
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/could not be listed: .*listing is down/) });
  }, 30_000);
});
