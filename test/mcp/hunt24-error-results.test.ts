/**
 * Hunt 24: a result marked `isError` of a tool that lists an output schema.
 * The README: "`isError` is a tool error the model sees". An output schema
 * says what the tool's results are; an error result need not fit it (the
 * SDK's `McpServer` checks structured content only of results that are not
 * errors). functai checked an error result's structured content against
 * the output schema too: a changing tool's "card declined", sent with
 * `{ reason: "declined" }`, stopped the turn for a person ("may have run:
 * the answer could not be read"), and a reading one told the model its
 * answer could not be read, not what the server said.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const CHARGED = { type: "object" as const, properties: { charged: { type: "number" } }, required: ["charged"] };
const CARD = { type: "object" as const, properties: { card: { type: "string" } }, required: ["card"] };

const TOOLS: Tool[] = [
  { name: "charge", description: "Charge a card.", inputSchema: CARD, outputSchema: CHARGED },
  { name: "quote", description: "What a charge would cost.", inputSchema: CARD, outputSchema: CHARGED, annotations: { readOnlyHint: true } },
];

async function desk() {
  const world = await hunt13Server([TOOLS], () => ({
    content: [{ type: "text", text: "card declined" }],
    structuredContent: { reason: "declined" },
    isError: true,
  }));
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(world.client) });
  return { ...world, fn };
}

describe("an isError result whose structured content is not of the tool's output schema", () => {
  for (const name of ["charge", "quote"])
    it(`is a tool error the model sees, with the server's words (${name})`, async () => {
      const { fn, calls } = await desk();
      const lm = deskModel({ name, input: { card: "4242" } });
      const reply = await fn("Charge it.", { lm, approve: () => true });
      expect(reply).toBe("failed: Error: card declined");
      expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name, isError: true });
      expect(calls.map((c) => c.name)).toEqual([name]);
    });
});
