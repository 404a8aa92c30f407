/**
 * Hunt 28: a result's parts for the user only (`annotations.audience:
 * ["user"]`). The model is not shown them (see hunt28-content-parts.test.ts),
 * and it is told how many were left out. They reached no one: a tool had one
 * output, which the model is shown, the turn's records keep and the stream's
 * `tool_result` event carries. Now the adapter hands them to the person with
 * `ctx.show`: they ride on the `tool_result` event (`shown`) and the turn's
 * `done` record, never in the model's messages.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const TOOLS: Tool[] = [
  { name: "receipt", description: "The order's receipt.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
];

describe("a part for the user only", () => {
  it("reaches the person (the stream's tool_result event), though the model is not shown it", async () => {
    const world = await hunt13Server([TOOLS], () => ({
      content: [
        { type: "text", text: "Receipt sent." },
        { type: "text", text: "Card ending 4242 charged 39.00", annotations: { audience: ["user"] } },
      ],
    }));
    const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(world.client) });
    const lm = deskModel({ name: "receipt", input: {} });
    const events: unknown[] = [];
    const s = fn.stream("My receipt?", { lm });
    for await (const e of s) if (e.type === "tool_result") events.push(e);
    await s;
    // the model is not shown it
    expect(lm.requests[1]!.messages.at(-1)!.content).not.toContain("4242");
    // the person is, as the server gave it
    expect(events).toMatchObject([{ shown: [{ type: "text", text: "Card ending 4242 charged 39.00", annotations: { audience: ["user"] } }] }]);
    expect(JSON.stringify(lm.requests)).not.toContain("4242");
  });
});
