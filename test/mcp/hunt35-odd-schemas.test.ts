/**
 * Hunt 35: tools whose input schema is odd, from a real server (over stdio,
 * in a process of its own).
 *
 * One tool the SDK's schema of a listing cannot read (an input schema with
 * no `type`, as the SDK's own McpServer lists a tool whose zod schema is
 * refined: `inputSchema: {}`) failed the whole listing: mcpTools refused
 * every tool of the server (`remote-protocol`), and `include` could not
 * leave the one tool out, as it leaves out any other tool functai cannot
 * offer ("the rest of the server's tools are still usable"). Such a tool is
 * now refused only when taken, saying where it breaks MCP and how to leave
 * it out. The others here (`$ref`s, a huge schema, one nested past the
 * stack) show what a user gets of them.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

async function server(tools: unknown[] | string) {
  const s = await hunt35(typeof tools === "string" ? `{"":{"tools":${tools}}}` : { "": { tools } });
  return kept(s);
}

const ctx = () => ({ signal: new AbortController().signal, idempotencyKey: "k1" }) as never;

describe("a tool the SDK cannot read beside tools it can", () => {
  const untyped = { name: "search", description: "Search orders.", inputSchema: {} };

  it("taken, is refused (remote-protocol), naming it, where it breaks MCP, and include", async () => {
    const { client, logged } = await server([toolNamed("lookup"), untyped]);
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-protocol" });
    expect((e as Error).message).toMatch(/^the MCP server's tools could not be listed: tools\.1\.inputSchema\.type: .*"search".*include/);
    expect(logged().filter((l) => "tool" in l)).toEqual([]);
  }, 30_000);

  it("left out with include (names or a test), the server's other tools are usable", async () => {
    const { client, logged } = await server([toolNamed("lookup"), untyped]);
    const [lookup] = await mcpTools(client, { include: ["lookup"] });
    expect(await lookup!.runAsTool({}, ctx())).toBe("ran lookup {}");
    expect((await mcpTools(client, { include: (t) => t.name !== "search" })).map((t) => t.name)).toEqual(["lookup"]);
    expect(logged()).toContainEqual({ tool: "lookup", phase: "begin" });
  }, 30_000);

  it("a tool with no name cannot be left out: the listing is refused (remote-protocol)", async () => {
    const { client } = await server([toolNamed("lookup"), { inputSchema: { type: "object" } }]);
    const e = await mcpTools(client, { include: ["lookup"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/tools\.1\.name: /) });
  }, 30_000);
});

describe("input schemas with $ref", () => {
  const order = {
    name: "place",
    inputSchema: {
      type: "object",
      properties: { order: { $ref: "#/$defs/Order" } },
      required: ["order"],
      $defs: { Order: { type: "object", properties: { id: { type: "string", pattern: "^[A-Z]-\\d{4}$" } }, required: ["id"] } },
    },
  };

  it("a local $ref is followed: an input it refuses is never sent; one that fits runs", async () => {
    const { client, logged } = await server([order]);
    const [place] = await mcpTools(client);
    expect(place!.parameters).toEqual(order.inputSchema);
    expect(place!.inputSchema.safeParse({ order: { id: "nope" } }).success).toBe(false);
    expect(place!.inputSchema.safeParse({ order: { id: "A-1042" } }).success).toBe(true);
    expect(await place!.runAsTool({ order: { id: "A-1042" } }, ctx())).toBe('ran place {"order":{"id":"A-1042"}}');
    expect(logged().filter((l) => "tool" in l)).toEqual([{ tool: "place", phase: "begin" }]);
  }, 30_000);

  it("a $ref to a schema elsewhere (it cannot be checked) is refused at listing: settings-invalid, naming the tool and include", async () => {
    const remote = { name: "remote", inputSchema: { type: "object", properties: { order: { $ref: "https://example.com/order.json" } } } };
    const { client } = await server([toolNamed("lookup"), remote]);
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "settings-invalid", message: expect.stringMatching(/remote.*example\.com\/order\.json/) });
    expect((await mcpTools(client, { include: ["lookup"] })).map((t) => t.name)).toEqual(["lookup"]);
  }, 30_000);
});

describe("huge input schemas", () => {
  it("a schema of 2,000 properties is taken and checked", async () => {
    const properties = Object.fromEntries(Array.from({ length: 2_000 }, (_, n) => [`field_${n}`, { type: "integer" }]));
    const { client } = await server([{ name: "bulk", inputSchema: { type: "object", properties } }]);
    const [bulk] = await mcpTools(client);
    expect(bulk!.inputSchema.safeParse({ field_1999: "x" }).success).toBe(false);
    expect(bulk!.inputSchema.safeParse({ field_1999: 1 }).success).toBe(true);
  }, 30_000);

  it("a schema nested past the stack is refused at listing (settings-invalid, naming it), never a crash", async () => {
    // as JSON text: JSON.stringify of it overflows the stack too
    const depth = 1_500;
    const nested = `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}`;
    const { client } = await server(`[${JSON.stringify(toolNamed("lookup"))},{"name":"deep","inputSchema":${nested}}]`);
    const e = await mcpTools(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ message: expect.stringMatching(/deep/) });
    expect((await mcpTools(client, { include: ["lookup"] })).map((t) => t.name)).toEqual(["lookup"]);
  }, 60_000);
});
