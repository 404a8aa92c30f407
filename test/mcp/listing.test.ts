/**
 * How mcpTools lists a server's tools, with real servers of the SDK (its
 * low-level `Server`, answering tools/list as a server of any make may):
 * pages followed to the end, a server whose cursor goes round in a circle,
 * and a listing that fails, each a FunctaiError rather than a hang or the
 * SDK's own error.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";

const toolNamed = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" as const, properties: {} }, annotations: { readOnlyHint: true } });

/** A client linked in memory to a server whose tools/list answers with `page(cursor)`; `asked` lists the cursors it was sent. */
async function pagedServer(page: (cursor: string | undefined) => ListToolsResult) {
  const asked: (string | undefined)[] = [];
  const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    asked.push(request.params?.cursor);
    // answered on a later turn of the event loop, as over a real transport (the linked pair alone answers in microtasks)
    await new Promise((r) => setTimeout(r, 1));
    return page(request.params?.cursor);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "desk-test", version: "1.0.0" });
  await client.connect(clientSide);
  return { client, server, asked };
}

describe("mcpTools listing a server's tools", () => {
  it("follows nextCursor to the last page", async () => {
    const pages: Record<string, ListToolsResult> = {
      start: { tools: [toolNamed("lookup_order")], nextCursor: "p2" },
      p2: { tools: [toolNamed("stock_level")], nextCursor: "p3" },
      p3: { tools: [toolNamed("carrier_status")] },
    };
    const { client, asked } = await pagedServer((cursor) => pages[cursor ?? "start"]!);
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(["lookup_order", "stock_level", "carrier_status"]);
    expect(asked).toEqual([undefined, "p2", "p3"]);
  });

  it("a server whose cursor comes round again is refused (remote-protocol), not listed forever", async () => {
    // a buggy server: page 2 points back to page 1
    const pages: Record<string, ListToolsResult> = {
      p1: { tools: [toolNamed("lookup_order")], nextCursor: "p2" },
      p2: { tools: [toolNamed("stock_level")], nextCursor: "p1" },
    };
    const { client, asked } = await pagedServer((cursor) => pages[cursor ?? "p1"]!);
    const listed = await Promise.race([mcpTools(client).catch((e: unknown) => e), new Promise((r) => setTimeout(() => r("still listing after 2 s"), 2_000))]);
    expect(listed).toBeInstanceOf(FunctaiError);
    expect(listed).toMatchObject({ code: "remote-protocol", message: expect.stringContaining('"p2"') });
    expect(asked).toEqual([undefined, "p2", "p1"]);
  });

  it("a listing the server fails, or a client already closed, is a FunctaiError with a code", async () => {
    const failing = await pagedServer(() => {
      throw new Error("the tool registry is down");
    });
    const refused = await mcpTools(failing.client).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FunctaiError);
    expect(refused).toMatchObject({ code: "remote-protocol", message: expect.stringContaining("the tool registry is down") });

    const { client } = await pagedServer(() => ({ tools: [toolNamed("lookup_order")] }));
    await client.close();
    const closed = await mcpTools(client).catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(FunctaiError);
    expect(closed).toMatchObject({ code: "remote-closed", message: expect.stringContaining("Not connected") });
  });
});

describe("tools named like Object.prototype's members", () => {
  it("take their effects from their annotations (or what effects says of them), not from Object.prototype", async () => {
    const changing = { ...toolNamed("constructor"), annotations: {} };
    const { client } = await pagedServer(() => ({ tools: [changing, toolNamed("toString"), toolNamed("valueOf")] }));
    const tools = await mcpTools(client, { effects: { valueOf: "changes" as const } });
    expect(tools.map((t) => [t.name, t.toolEffects])).toEqual([["constructor", "changes"], ["toString", "reads"], ["valueOf", "changes"]]);
  });
});
