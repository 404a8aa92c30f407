/**
 * Hunt 127: what mcpTools says of a client that cannot be used as given: the SDK's Client never connected, or a
 * wrapper of a connected Client (no `transport` of its own) whose methods were copied off the Client unbound, so
 * that they run on the wrapper. Before, a Client never connected was said to have "its connection closed (the
 * server ended, or the client was closed)"; a wrapper's unbound `listTools` failed the listing as a protocol error
 * with the bare TypeError ("this.request is not a function"); one whose unbound `request` ran on the wrapper said
 * the connected Client's connection was closed; and a changing tool called through an unbound `callTool` stopped
 * its turn for a person ("may have run") though nothing was sent.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

describe("a client mcpTools cannot use as given", () => {
  it("the SDK's Client never connected: settings-invalid, saying to connect it first", async () => {
    const client = new Client({ name: "hunt127", version: "1.0.0" });
    await expect(mcpTools(client)).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringContaining("not connected: connect it first (await client.connect(transport))"),
    });
  });

  it("a wrapper whose listTools and callTool are the Client's, unbound: settings-invalid, saying to bind them", async () => {
    const { client, logged } = kept(await hunt45({ tools: [tool45("refund", true)] }));
    const wrapper = { listTools: client.listTools, callTool: client.callTool };
    await expect(mcpTools(wrapper as never)).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringMatching(/not the SDK's Client \(it has no transport\).*bound to it/),
    });
    expect(logged()).toEqual([]);
  }, 30_000);

  it("a wrapper whose request is the Client's, unbound: said to be the wrapper's, not the connected Client's closed connection", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("peek")] }));
    const wrapper = { listTools: client.listTools.bind(client), callTool: client.callTool.bind(client), request: client.request };
    const e = await mcpTools(wrapper as never).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "remote-closed", message: expect.stringContaining("the wrapper's methods are not bound to it") });
    expect((e as Error).message).not.toContain("the server ended");
  }, 30_000);

  it("a changing tool called through a wrapper's unbound callTool: a tool error (settings-invalid), not a call that may have run", async () => {
    const { client, logged } = kept(await hunt45({ tools: [tool45("refund", true)] }));
    const wrapper = { listTools: client.listTools.bind(client), callTool: client.callTool };
    const [refund] = await mcpTools(wrapper as never);
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringMatching(/bound to it .*the MCP tool refund was not called/),
    });
    expect(logged()).toEqual([]);
  }, 30_000);
});
