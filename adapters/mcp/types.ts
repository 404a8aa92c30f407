/** The types of `functai/mcp`'s tools: the client it takes, a tool as the server lists it, its options, a tool made. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Effects } from "../../src/records/types.js";
import type { ToolLike } from "../../src/tools/types.js";

/**
 * A connected MCP client (`@modelcontextprotocol/sdk`'s `Client`): only these methods are used. A call is
 * sent with `request` when the client has it (the SDK's `Client` does): `callTool` checks a tool's output
 * with one validator for every tool, which mixes up output schemas that share an `$id`, and functai checks
 * each tool's output against its own schema. Without `request`, calls go through `callTool`.
 *
 * @example
 * const client: McpClient = new Client({ name: "desk", version: "1.0.0" }); // connected before use
 * const tools = await mcpTools(client);
 */
export type McpClient = Pick<Client, "listTools" | "callTool"> & Partial<Pick<Client, "request">>;

/**
 * One tool as the server lists it.
 *
 * @example
 * const onlyReads = (info: McpToolInfo) => info.annotations?.readOnlyHint === true;
 * const tools = await mcpTools(client, { include: onlyReads });
 */
export type McpToolInfo = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

/** What one `tools/call` sends. */
export type CallParams = Parameters<Client["callTool"]>[0];

/**
 * Which of a server's tools `mcpTools` takes (`include`), and their effects
 * where the server's annotations say otherwise or nothing (`effects`).
 *
 * @example
 * const options: McpToolsOptions = { include: ["lookup_order", "refund"], effects: { lookup_order: "reads" } };
 * const tools = await mcpTools(client, options);
 */
export interface McpToolsOptions {
  /** Effects by tool name, over what the server's annotations say. */
  effects?: Record<string, Effects>;
  /** Only these tools: names, or a test of each tool the server lists. */
  include?: readonly string[] | ((tool: McpToolInfo) => boolean);
  /**
   * How long each request to the server (a page of the listing, a call) waits for its answer, in ms: 1 to
   * 2,147,483,647 (the SDK's own default: 60,000). A call past it is cancelled on the server: a changing
   * tool's call may have run (its turn stops for a person), a reading one's is a tool error.
   */
  timeout?: number;
}

/**
 * A tool made from an MCP server's tool.
 *
 * @example
 * const [first]: McpTool[] = await mcpTools(client);
 * console.log(first?.name, first?.toolEffects, first?.info.annotations);
 * const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
 */
export interface McpTool extends ToolLike {
  readonly kind: "mcp";
  readonly parameters: Record<string, unknown>;
  /** What the server said of it (annotations included). */
  readonly info: McpToolInfo;
}
