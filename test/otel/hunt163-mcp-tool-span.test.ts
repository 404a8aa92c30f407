/**
 * Hunt 163: an MCP tool's `execute_tool` span. The MCP semantic conventions ask an MCP instrumentation that finds an
 * outer GenAI instrumentation already tracing the tool's execution to add its MCP attributes to that span, not make
 * a second one: `mcp.method.name` (required on an MCP client span) is `tools/call`. A call of an MCP tool says so to
 * the hooks (`PluginToolCall.kind`, from the tool's definition) and its span carries it; `gen_ai.tool.type` stays
 * `function`, as the conventions name no type for MCP tools (function / extension / datastore say who runs the tool,
 * and this process runs both alike).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { otel } from "../../adapters/otel/index.js";
import { type PluginToolCall, ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { hungClient } from "./fixtures/hung-desk.js";
import { one, tracing } from "./tracing.js";

describe("otel() and an MCP tool's call", () => {
  it("a real MCP server's tool: its span says mcp.method.name tools/call and the hooks are told kind mcp; a tool()'s says no MCP method; both stay gen_ai.tool.type function", async () => {
    const t = tracing();
    const kinds: [string, PluginToolCall["kind"]][] = [];
    const seen = { name: "seen", version: "1", hooks: { toolCall: (c: PluginToolCall) => void kinds.push([c.name, c.kind]) } };
    const lookup = (await mcpTools(await hungClient())).filter((x) => x.name === "lookup_order");
    const note = tool("note", { description: "Note a line.", input: { line: z.string() }, effects: "reads" }, ({ line }) => line.length);
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [...lookup, note] });
    const lm = scripted([
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }, { name: "note", input: { line: "looked" } }] },
      "done",
    ]);
    expect(await desk({ message: "Where is A-1042?" }, { lm, plugins: [otel({ tracer: t.tracer }), seen] })).toBe("done");
    expect(kinds).toEqual([
      ["lookup_order", "mcp"],
      ["note", "tool"],
    ]);
    const mcp = one(t.spans(), "execute_tool lookup_order").attributes;
    const own = one(t.spans(), "execute_tool note").attributes;
    expect([mcp["mcp.method.name"], mcp["gen_ai.tool.type"], mcp["gen_ai.operation.name"]]).toEqual(["tools/call", "function", "execute_tool"]);
    expect([own["mcp.method.name"], own["gen_ai.tool.type"]]).toEqual([undefined, "function"]);
  });
});
