/**
 * Hunt 13: output schemas of tools listed on a page before the last. A
 * changing tool's call "answered with a result that cannot be read (not an
 * MCP result, or structured content that breaks the tool's output schema),
 * may have acted: it is never shown to the model as an error it could answer
 * by calling again. The turn stops, resumable, with the call unfinished"
 * (README, "MCP tools and OpenTelemetry"). That check was the SDK client's,
 * made with what its last `listTools` cached, and each `listTools` forgets
 * what the one before cached: after mcpTools followed a server's pages, only
 * the last page's tools were checked. A changing tool listed on page 1 whose
 * structured content broke its output schema was shown to the model as its
 * result; a reading one too, where it is a tool error the model sees.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, isFunctaiError, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const LOCKED = { type: "object" as const, properties: { account: { type: "string" }, locked: { type: "boolean" } }, required: ["account", "locked"] };
const ACCOUNT = { type: "object" as const, properties: { account: { type: "string" } }, required: ["account"] };

const TOOLS: Tool[] = [
  { name: "lock", description: "Lock an account.", inputSchema: ACCOUNT, outputSchema: LOCKED },
  { name: "seal", description: "Seal an account.", inputSchema: ACCOUNT, outputSchema: LOCKED },
  { name: "limits", description: "Whether an account is locked.", inputSchema: ACCOUNT, outputSchema: LOCKED, annotations: { readOnlyHint: true } },
];
const PING: Tool = { name: "ping", description: "Is the server up?", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };

/** lock and limits answer `locked: "yes"` (breaking their output schema); seal answers text only (no structured content); ping, "pong". */
const answer = (name: string, args: Record<string, unknown>): CallToolResult => {
  if (name === "ping") return { content: [{ type: "text", text: "pong" }] };
  const text = [{ type: "text" as const, text: `${name} ${String(args.account)}` }];
  if (name === "seal") return { content: text };
  return { content: text, structuredContent: { account: String(args.account), locked: "yes" } };
};

async function desk(pages: Tool[][]) {
  const world = await hunt13Server(pages, answer);
  const tools = await mcpTools(world.client);
  const fn = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools });
  return { ...world, fn };
}

describe.each([
  ["on the first of two pages", [TOOLS, [PING]]],
  ["on the last page", [[PING], TOOLS]],
  ["on the only page", [[...TOOLS, PING]]],
])("tools with an output schema listed %s", (_where, pages) => {
  for (const [tool, why] of [
    ["lock", /output schema/],
    ["seal", /output schema.*structured content|structured content.*output schema/],
  ] as const) {
    it(`a changing call (${tool}) whose answer breaks its output schema stops the turn for a person (turn-unfinished), never shown to the model`, async () => {
      const { fn, calls } = await desk(pages);
      const lm = deskModel({ name: tool, input: { account: "A-1" } });
      const store = memoryStore();
      const chat = fn.conversation("acct", { store, lm });
      const e = await chat.send("Do it.").catch((x: unknown) => x);
      expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
      expect((e as Error).message).toMatch(new RegExp(`${tool} may have run: the MCP server's answer could not be read`));
      expect((e as Error).message).toMatch(why);
      expect(lm.requests).toHaveLength(1);
      const [turn] = await chat.turns();
      expect(turn!.state).toBe("interrupted");
      expect(turn!.unfinished.map((t) => t.name)).toEqual([tool]);
      expect(calls.map((c) => c.name)).toEqual([tool]);
    });
  }

  it("a reading call whose answer breaks its output schema is a tool error the model sees (remote-protocol), not its result", async () => {
    const { fn, calls } = await desk(pages);
    const lm = deskModel({ name: "limits", input: { account: "A-1" } });
    const reply = await fn("Is A-1 locked?", { lm });
    expect(reply).toMatch(/^failed: Error: the MCP server's answer to limits could not be read: .*output schema/);
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "limits", isError: true });
    expect(calls.map((c) => c.name)).toEqual(["limits"]);
  });

  it("a tool with no output schema, on the other page, answers as before: its text is its result", async () => {
    const { fn } = await desk(pages);
    expect(await fn("Up?", { lm: deskModel({ name: "ping", input: {} }) })).toBe("ok: pong");
  });
});
