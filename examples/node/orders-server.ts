/**
 * The desk's orders as an MCP server (the SDK's McpServer) speaking MCP over
 * stdio: `find_order` is read-only (readOnlyHint), `refund` is destructive.
 * Each refund run is written to the ledger file given as the argument.
 *
 *   node --import tsx examples/node/orders-server.ts <ledger>
 */
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const ledger = process.argv[2];
const ORDERS: Record<string, { item: string; paid: number; status: string }> = {
  "A-1042": { item: "kettle", paid: 39, status: "lost by the carrier" },
  "B-2210": { item: "toaster", paid: 25, status: "delivered" },
};

const server = new McpServer({ name: "orders", version: "1.0.0" });
server.registerTool(
  "find_order",
  {
    description: "The order's item, price paid and shipping status.",
    inputSchema: { order_id: z.string().describe("like A-1042") },
    outputSchema: { item: z.string(), paid: z.number(), status: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ order_id }) => {
    const order = ORDERS[order_id];
    if (!order) return { content: [{ type: "text", text: `no order ${order_id}` }], isError: true };
    return { content: [{ type: "text", text: JSON.stringify(order) }], structuredContent: order };
  },
);
server.registerTool(
  "refund",
  {
    description: "Refund an amount to the customer's card.",
    inputSchema: { order_id: z.string(), amount: z.number().positive() },
    annotations: { destructiveHint: true },
  },
  async ({ order_id, amount }) => {
    if (ledger) appendFileSync(ledger, `refund ${order_id} ${amount.toFixed(2)} (MCP server, process ${process.pid})\n`);
    return { content: [{ type: "text", text: `refunded ${amount.toFixed(2)} for ${order_id}` }] };
  },
);
await server.connect(new StdioServerTransport());
