/**
 * Hunt 13: input schemas that carry an `$id`. Each MCP tool's input is
 * checked against its own JSON Schema before it runs (README, "MCP tools and
 * OpenTelemetry": "an input is checked against that schema before the tool
 * runs"). The SDK's validator keeps each schema it compiled by its `$id` and
 * hands it back for any later schema of that `$id`: two tools of one server
 * whose input schemas share an `$id` (a generator's fixed one) were both
 * checked against the first one's. A valid input of the second was refused
 * (the tool never usable), and an input its own schema refuses was sent to
 * the server (a changing tool run with what it does not take).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const ID = "https://orders.example/schemas/input.json";

const TOOLS: Tool[] = [
  {
    name: "hold",
    description: "Put an account on hold.",
    inputSchema: { $id: ID, type: "object", properties: { account: { type: "string" } }, required: ["account"], additionalProperties: false },
  },
  {
    name: "transfer",
    description: "Move an amount out.",
    inputSchema: {
      $id: ID,
      type: "object",
      properties: { amount: { type: "number", exclusiveMinimum: 0 } },
      required: ["amount"],
      additionalProperties: false,
    },
    annotations: { destructiveHint: true },
  },
];

async function desk() {
  const world = await hunt13Server([TOOLS], (name, args) => ({ content: [{ type: "text", text: `${name} ran with ${JSON.stringify(args)}` }] }));
  const tools = await mcpTools(world.client);
  const fn = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools });
  return { ...world, fn };
}

describe("two tools whose input schemas share an $id", () => {
  it("each tool's input is checked against its own schema: the second tool's valid input runs", async () => {
    const { fn, calls } = await desk();
    const reply = await fn("Move 5.", { lm: deskModel({ name: "transfer", input: { amount: 5 } }), approve: () => true });
    expect(reply).toBe('ok: transfer ran with {"amount":5}');
    expect(calls).toEqual([{ name: "transfer", args: { amount: 5 } }]);
  });

  it("an input the second tool's own schema refuses is never sent to the server", async () => {
    const { fn, calls } = await desk();
    const reply = await fn("Move it.", { lm: deskModel({ name: "transfer", input: { account: "A-1" } }), approve: () => true });
    expect(reply).toMatch(/^failed: Error: invalid input for transfer: .*amount.*The tool did not run\.$/s);
    expect(calls).toEqual([]);
  });

  it("the first tool keeps its own schema too", async () => {
    const { fn, calls } = await desk();
    expect(await fn("Hold A-1.", { lm: deskModel({ name: "hold", input: { account: "A-1" } }), approve: () => true })).toBe(
      'ok: hold ran with {"account":"A-1"}',
    );
    expect(await fn("Hold it.", { lm: deskModel({ name: "hold", input: { amount: 5 } }), approve: () => true })).toMatch(
      /^failed: Error: invalid input for hold: /,
    );
    expect(calls).toEqual([{ name: "hold", args: { account: "A-1" } }]);
  });
});

describe("two tools whose output schemas share an $id", () => {
  // This check was the SDK client's own, inside client.callTool, made with the one validator the client
  // keeps (the same $id mix-up as above, in @modelcontextprotocol/sdk's Client.cacheToolMetadata), so
  // mcpTools never saw the answer. Calls now go through client.request, and mcpTools checks each tool's
  // output against its own schema (as it does for every page of the listing, hunt13-paged-output.test.ts).
  it("a changing tool's answer that fits its own output schema is its result, not a call in doubt", async () => {
    const OUT = "https://orders.example/schemas/output.json";
    const tools: Tool[] = [
      {
        name: "hold",
        inputSchema: { type: "object" },
        outputSchema: { $id: OUT, type: "object", properties: { held: { type: "string" } }, required: ["held"] },
      },
      {
        name: "charge",
        inputSchema: { type: "object" },
        outputSchema: { $id: OUT, type: "object", properties: { charged: { type: "number" } }, required: ["charged"] },
      },
    ];
    const { client, calls } = await hunt13Server([tools], (name) =>
      name === "hold" ? { content: [], structuredContent: { held: "A-1" } } : { content: [], structuredContent: { charged: 5 } },
    );
    const fn = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: await mcpTools(client) });
    const reply = await fn("Charge 5.", { lm: deskModel({ name: "charge", input: {} }), approve: () => true }).catch((e: unknown) => e);
    expect(calls).toEqual([{ name: "charge", args: {} }]);
    expect(reply).toBe('ok: {"charged":5}');
  });
});
