/**
 * Hunt 35: a server (over stdio, in a process of its own) whose tools/list
 * says "no more pages" with `nextCursor: null`, as servers of other makes
 * write it (a field of their own type left empty), not by leaving it out.
 * The SDK's schema of a listing takes a string or nothing, so its
 * `listTools` refused the whole listing and mcpTools failed with
 * `remote-protocol`: none of the server's tools could be had.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

async function server(pages: Record<string, unknown>) {
  const s = await hunt35(pages);
  return kept(s);
}

describe("a tools/list answer with nextCursor: null", () => {
  it("is the last page: its tools are listed, and no further page is asked for", async () => {
    const { client, logged } = await server({ "": { tools: [toolNamed("lookup"), toolNamed("refund", true)], nextCursor: null } });
    const tools = await mcpTools(client);
    expect(tools.map((t) => [t.name, t.toolEffects])).toEqual([
      ["lookup", "reads"],
      ["refund", "changes"],
    ]);
    expect(logged()).toEqual([{ list: "" }]);
  }, 30_000);

  it("after pages with a cursor: every page's tools, in order", async () => {
    const { client, logged } = await server({
      "": { tools: [toolNamed("lookup")], nextCursor: "p2" },
      p2: { tools: [toolNamed("refund", true)], nextCursor: null },
    });
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(["lookup", "refund"]);
    expect(logged()).toEqual([{ list: "" }, { list: "p2" }]);
  }, 30_000);

  it("the tools so listed run on the server", async () => {
    const { client, logged } = await server({ "": { tools: [toolNamed("lookup")], nextCursor: null } });
    const [lookup] = await mcpTools(client);
    const ctx = { signal: new AbortController().signal, idempotencyKey: "k1" } as never;
    expect(await lookup!.runAsTool({}, ctx)).toBe("ran lookup {}");
    expect(logged()).toContainEqual({ tool: "lookup", phase: "begin" });
  }, 30_000);

  it("a tool's fields MCP lets a server leave out, written null, are read as left out: its tools are listed", async () => {
    const nulls = {
      name: "refund",
      title: null,
      description: null,
      inputSchema: { type: "object", properties: { order_id: { type: "string" } } },
      outputSchema: null,
      annotations: { title: null, readOnlyHint: null, destructiveHint: true },
      execution: null,
      icons: null,
      _meta: null,
    };
    const { client } = await server({ "": { tools: [toolNamed("lookup"), nulls, { ...toolNamed("peek"), annotations: null }], nextCursor: null } });
    const tools = await mcpTools(client);
    expect(tools.map((t) => [t.name, t.toolEffects, t.description])).toEqual([
      ["lookup", "reads", "The lookup tool."],
      // readOnlyHint null says nothing: it changes, as a tool with no annotations does
      ["refund", "changes", ""],
      ["peek", "changes", "The peek tool."],
    ]);
    expect(tools[1]!.info).toEqual({
      name: "refund",
      inputSchema: { type: "object", properties: { order_id: { type: "string" } } },
      annotations: { destructiveHint: true },
    });
  }, 30_000);

  it("a tool whose input schema is null, or a hint of another type, is still refused (remote-protocol), saying where", async () => {
    for (const [broken, where] of [
      [{ name: "refund", inputSchema: null }, /tools\.0\.inputSchema: /],
      [{ ...toolNamed("refund"), annotations: { readOnlyHint: "true" } }, /tools\.0\.annotations\.readOnlyHint: /],
    ] as const) {
      const { client } = await server({ "": { tools: [broken] } });
      const e = await mcpTools(client).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(where) });
    }
  }, 30_000);

  it("a cursor of another type (a number) is still refused (remote-protocol), saying where", async () => {
    const { client } = await server({ "": { tools: [toolNamed("lookup")], nextCursor: 2 } });
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/nextCursor: /) });
  }, 30_000);
});
