/**
 * `functai/mcp`: an MCP server's tools as functai tools, their effects taken
 * from the server's annotations. Needs `@modelcontextprotocol/sdk` (an
 * optional peer dependency): the caller connects the client.
 *
 * @example
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
 * import { mcpTools } from "functai/mcp";
 *
 * const client = new Client({ name: "desk", version: "1.0.0" });
 * await client.connect(new StdioClientTransport({ command: "node", args: ["orders-server.js"] }));
 * const tools = await mcpTools(client, { effects: { lookup_order: "reads" } });
 */
export { mcpTools, effectsOf, type McpClient, type McpTool, type McpToolInfo, type McpToolsOptions } from "./tools.js";
export { outputOf, type McpCallResult } from "./result.js";
