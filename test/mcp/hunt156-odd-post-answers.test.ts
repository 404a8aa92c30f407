/**
 * Hunt 156: over Streamable HTTP, a POST carrying a request answered in a way no answer can be read from.
 *
 * - 202 Accepted, no body: MCP gives it only to a POST of notifications or responses, never to one carrying a
 *   request (whose answer is JSON, or a stream of events). The SDK takes any 202 as "no body to read" and the request
 *   waited out its whole timeout. Now it fails at once: a changing call's turn stops for a person (the server accepted
 *   it: it may have run), a reading call and a listing are `remote-protocol`, each saying the server answered a
 *   request with 202. The old SSE transport's POSTs are all answered 202 (its answers come on its one stream): its
 *   calls are read as ever (guard).
 * - `application/json` whose body is not JSON (a gateway's HTML error page sent as 200): the SDK's parse fails. A
 *   changing call was put in doubt (right), but saying "no answer came back" (one came), and a reading call threw
 *   the bare SyntaxError with no code. Now both say the answer could not be read, not JSON, naming a short excerpt of
 *   what came; the reading call is `remote-protocol`.
 *
 * The server is the SDK's (`Server` on its `StreamableHTTPServerTransport`, JSON answers, over node:http in this
 * process); the HTTP server in front of it answers the POSTs each case names itself, as a proxy or gateway might.
 * Each call's timeout is far past the test's own, so a call that waits for it fails the test.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, settled, tool45 } from "./fixtures/hunt45.js";
import { type Odd, oddServer } from "./fixtures/odd-posts.js";
import { sseSessions } from "./fixtures/sse-sessions.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

const accepted = (method: string) =>
  new RegExp(
    `the MCP server answered the POST carrying the ${method} request with 202 Accepted, which MCP gives only to notifications and responses, never to a request: no answer will come`,
  );
const ACCEPTED_CALL = accepted("tools/call");

describe("a POST carrying a request answered 202 Accepted", () => {
  it("a changing call's turn stops for a person at once: the server accepted it, so it may have run", async () => {
    let odd: Odd | undefined;
    const s = kept(await oddServer(() => odd));
    const [, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
    odd = { method: "tools/call", status: 202, body: "" };
    const { error } = await settled(refund!);
    expect(error).toMatchObject({ name: "NeedsPerson" });
    expect(error!.message).toMatch(/^the MCP tool refund may have run: /);
    expect(error!.message).toMatch(ACCEPTED_CALL);
    expect(s.taken).toEqual(["refund"]);
  }, 30_000);

  it("a reading call is remote-protocol at once, saying the server answered a request with 202", async () => {
    let odd: Odd | undefined;
    const s = kept(await oddServer(() => odd));
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    odd = { method: "tools/call", status: 202, body: "" };
    const { error } = await settled(peek!);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
    expect(error!.message).toMatch(/^the MCP tool peek did not finish: /);
    expect(error!.message).toMatch(ACCEPTED_CALL);
  }, 30_000);

  it("a listing fails remote-protocol at once", async () => {
    const s = kept(await oddServer(() => ({ method: "tools/list", status: 202, body: "" })));
    const listed = mcpTools(s.client, { timeout: TIMEOUT });
    await expect(listed).rejects.toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
    await expect(listed).rejects.toThrow(/^the MCP server's tools could not be listed: /);
    await expect(listed).rejects.toThrow(accepted("tools/list"));
  }, 30_000);

  it("a call answered after, on the same client, is read as ever (guard: nothing is left watching)", async () => {
    let odd: Odd | undefined;
    const s = kept(await oddServer(() => odd));
    const [peek, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
    odd = { method: "tools/call", status: 202, body: "" };
    expect((await settled(peek!)).error).toMatchObject({ code: "remote-protocol" });
    odd = undefined;
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
    expect(s.calls).toEqual(["refund"]);
  }, 30_000);
});

it("over the old SSE transport, whose every POST is answered 202 (its answers come on its stream), calls are read as ever (guard)", async () => {
  const s = kept(
    await sseSessions("hunt156-sse-test", () => {
      const server = new Server({ name: "hunt156-sse", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool45("peek"), tool45("refund", true)] }) as never);
      server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: `ran ${request.params.name}` }] }));
      return server;
    }),
  );
  const [peek, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
  expect(await peek!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
  expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
}, 30_000);

describe("a JSON answer to a call that is not JSON", () => {
  const page = `<html><head><title>502 Bad Gateway</title></head><body>${"upstream gone ".repeat(40)}</body></html>`;

  it("a changing call stops for a person, saying its answer could not be read (not JSON) and what came, cut short", async () => {
    let odd: Odd | undefined;
    const s = kept(await oddServer(() => odd));
    const [, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
    odd = { method: "tools/call", status: 200, type: "application/json", body: page };
    const { error } = await settled(refund!);
    expect(error).toMatchObject({ name: "NeedsPerson" });
    // cut short: its first 80 characters as JSON writes them, and its size
    expect(error!.message).toBe(
      `the MCP tool refund may have run: the MCP server's answer could not be read (it is not JSON: "<html><head><title>502 Bad Gateway</title></head><body>upstream gone upstream g… (${page.length} bytes)). Say what it returned, or ask for a rerun.`,
    );
    expect(s.taken).toEqual(["refund"]);
  }, 30_000);

  it("a reading call is remote-protocol, saying the same", async () => {
    let odd: Odd | undefined;
    const s = kept(await oddServer(() => odd));
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    odd = { method: "tools/call", status: 200, type: "application/json", body: "not json at all" };
    const { error } = await settled(peek!);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
    expect(error!.message).toBe('the MCP server\'s answer to peek could not be read: it is not JSON: "not json at all" (15 bytes)');
  }, 30_000);

  it("a listing fails remote-protocol, saying the same", async () => {
    const s = kept(await oddServer(() => ({ method: "tools/list", status: 200, type: "application/json", body: "{" })));
    await expect(mcpTools(s.client, { timeout: TIMEOUT })).rejects.toMatchObject({
      name: "FunctaiError",
      code: "remote-protocol",
      message: `the MCP server's tools could not be listed: its answer could not be read (it is not JSON: "{" (1 byte))`,
    });
  }, 30_000);

  it("an empty body is said to be empty", async () => {
    let odd: Odd | undefined;
    const s = kept(await oddServer(() => odd));
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    odd = { method: "tools/call", status: 200, type: "application/json", body: "" };
    const { error } = await settled(peek!);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
    expect(error!.message).toBe("the MCP server's answer to peek could not be read: it is not JSON: it was empty");
  }, 30_000);
});
