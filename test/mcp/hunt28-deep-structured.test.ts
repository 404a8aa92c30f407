/**
 * Hunt 28: structured content nested too deep to be written as JSON (a
 * misbehaving server's `{ a: { a: … } }`, 20,000 levels: JSON.parse reads it,
 * JSON.stringify overflows the stack). The adapter handed it on as the
 * tool's output, and the engine, finding it cannot be kept, showed the model
 * a tool error ("its output is not JSON"): for a changing tool that had run,
 * an error the model could answer by calling it again. It is an answer that
 * cannot be read (README: "may have acted: it is never shown to the model as
 * an error it could answer by calling again"): the turn stops for a person
 * (`turn-unfinished`); a reading tool's is a tool error the model sees
 * (`remote-protocol`), saying what is wrong. So is content whose check
 * against the tool's output schema overflows on it (a recursive schema): the
 * check's RangeError was a tool error the model saw.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, isFunctaiError, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const TOOLS: Tool[] = [
  { name: "refund", description: "Refund an order.", inputSchema: { type: "object" } },
  { name: "find_order", description: "Find an order.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  // an output schema that follows the content down: checking 20,000 levels overflows the stack
  {
    name: "prune",
    description: "Prune a tree.",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { a: { $ref: "#" } } },
  },
];

/** `{ a: { a: … {} } }`, `levels` deep: what a JSON text of that depth parses to. */
const deep = (levels: number): Record<string, unknown> => JSON.parse(`${'{"a":'.repeat(levels)}{}${"}".repeat(levels)}`);

async function desk() {
  const answer: CallToolResult = { content: [{ type: "text", text: "done" }], structuredContent: deep(20_000) };
  const world = await hunt13Server([TOOLS], () => answer);
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(world.client) });
  return { ...world, fn };
}

describe("structured content too deep to write as JSON", () => {
  it("of a changing tool stops the turn for a person (turn-unfinished), never a tool error the model could retry", async () => {
    const { fn, calls } = await desk();
    const lm = deskModel({ name: "refund", input: {} });
    const store = memoryStore();
    const chat = fn.conversation("c", { store, lm });
    const e = await chat.send("Refund it.").catch((x: unknown) => x);
    expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/refund may have run: the MCP server's answer could not be read \(.*JSON/);
    expect(lm.requests).toHaveLength(1);
    const [turn] = await chat.turns();
    expect(turn!.unfinished.map((t) => t.name)).toEqual(["refund"]);
    expect(calls.map((c) => c.name)).toEqual(["refund"]);
  });

  it("of a changing tool whose output schema's check overflows on it stops the turn for a person (turn-unfinished)", async () => {
    const { fn, calls } = await desk();
    const lm = deskModel({ name: "prune", input: {} });
    const chat = fn.conversation("c", { store: memoryStore(), lm });
    const e = await chat.send("Prune it.").catch((x: unknown) => x);
    expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/prune may have run: the MCP server's answer could not be read \(.*output schema/);
    expect(lm.requests).toHaveLength(1);
    expect(calls.map((c) => c.name)).toEqual(["prune"]);
  });

  it("of a reading tool is a tool error the model sees (remote-protocol)", async () => {
    const { fn } = await desk();
    const lm = deskModel({ name: "find_order", input: {} });
    const reply = await fn("Find it.", { lm });
    expect(reply).toMatch(/^failed: Error: the MCP server's answer to find_order could not be read: .*JSON/);
  });
});
