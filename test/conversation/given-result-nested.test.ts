/**
 * A person's result for a call made inside an AI function used as a tool
 * (`desk/helper/charge`) is held to its tool's check as a top-level one is
 * (test/mcp/hunt41-given-result.test.ts): the tool is found by the call's
 * path through the functions' tools. A result that fits goes on.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { hunt13Server } from "../mcp/fixtures/hunt13-server.js";

const CHARGED = { type: "object" as const, properties: { charged: { type: "number" } }, required: ["charged"] };
const TOOLS: Tool[] = [
  { name: "charge", description: "Charge a card.", inputSchema: { type: "object", properties: { card: { type: "string" } } }, outputSchema: CHARGED },
];

/** The outer model asks its helper; the helper charges; each then says what its tool returned. */
const model = () =>
  scripted(
    Array.from({ length: 6 }, () => (request: LMRequest) => {
      const last = request.messages.filter((m) => m.role === "tool").at(-1);
      if (last) return `<result>${last.content}</result>`;
      return request.tools.some((t) => t.name === "helper")
        ? { toolCalls: [{ name: "helper", input: { task: "charge 4242" } }] }
        : { toolCalls: [{ name: "charge", input: { card: "4242" } }] };
    }),
  );

async function stopped() {
  const world = await hunt13Server([TOOLS], () => ({ content: [{ type: "text", text: "charged" }], structuredContent: { charged: "lots" } }));
  const helper = ai("helper", { description: "Charge cards.", input: { task: z.string() }, tools: await mcpTools(world.client) });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [helper] });
  const store = memoryStore();
  await expect(desk.conversation("sam", { store, lm: model() }).send("Charge it.")).rejects.toMatchObject({ code: "turn-unfinished" });
  const lm = model();
  const [turn] = await desk.conversation("sam", { store, lm }).turns();
  expect(turn!.unfinished).toMatchObject([{ name: "charge", path: "desk/helper/charge" }]);
  return { turn: turn!, lm, store, calls: world.calls };
}

describe("a person's result for a call inside an AI function used as a tool", () => {
  it("one that breaks its tool's output schema is refused (input-invalid), nothing written, no model paid", async () => {
    const { turn, lm, store, calls } = await stopped();
    const before = (await store.read("sam")).length;
    const e = await turn.resume({ results: { 1: { charged: "lots" } } }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/charge \(invocation 1\).*output schema.*nothing was written/) });
    expect(lm.requests).toHaveLength(0);
    expect((await store.read("sam")).length).toBe(before);
    expect(turn.unfinished).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("one that fits it is taken, and the turn goes on without sending the call again", async () => {
    const { turn, calls } = await stopped();
    await expect(turn.resume({ results: { 1: { charged: 39 } } })).resolves.toBe('{"charged":39}');
    expect(calls).toHaveLength(1);
  });
});
