/**
 * Hunt 41: a person's result for an MCP tool that lists an output schema. A
 * changing call whose answer could not be read (here: structured content
 * that breaks the tool's output schema) stops its turn for a person, who
 * says what it returned (`resume({ results })`). A result the server gives
 * is held to the tool's output schema; a person's was not: what broke it
 * went to the model as the tool's result, the very thing the check exists
 * to keep from it. Now it is refused, with nothing written.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const CHARGED = { type: "object" as const, properties: { charged: { type: "number" } }, required: ["charged"] };
const TOOLS: Tool[] = [
  { name: "charge", description: "Charge a card.", inputSchema: { type: "object", properties: { card: { type: "string" } } }, outputSchema: CHARGED },
];

/** A turn stopped for a person: the server's answer to charge breaks its output schema. */
async function stopped() {
  const world = await hunt13Server([TOOLS], () => ({ content: [{ type: "text", text: "charged" }], structuredContent: { charged: "lots" } }));
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(world.client) });
  const store = memoryStore();
  const chat = desk.conversation("sam", { store, lm: deskModel({ name: "charge", input: { card: "4242" } }) });
  await expect(chat.send("Charge it.")).rejects.toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/output schema/) });
  const lm = deskModel({ name: "charge", input: { card: "4242" } });
  const [turn] = await desk.conversation("sam", { store, lm }).turns();
  return { turn: turn!, lm, calls: world.calls };
}

describe("a person's result for an MCP tool with an output schema", () => {
  it("one that fits it is the tool's result, and the call is not sent again", async () => {
    const { turn, calls } = await stopped();
    expect(await turn.resume({ results: { 1: { charged: 39 } } })).toBe('ok: {"charged":39}');
    expect(calls).toHaveLength(1);
  });

  // A ToolLike says what is wrong with a result given for it (checkResult: an McpTool's output-schema check), asked
  // by resume before anything is written, the tool found where its call was made (toolAt, by the call's path).
  it("one that breaks it is refused (input-invalid), and the model is not shown it", async () => {
    const { turn, lm } = await stopped();
    const e = await turn.resume({ results: { 1: { charged: "lots" } } }).catch((x: unknown) => x);
    expect(lm.requests).toHaveLength(0);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/output schema/) });
  });
});
