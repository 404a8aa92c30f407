/**
 * Story 5 of `npm start`: the refund desk's tools come from an MCP server
 * run as a child process (stdio), their effects from the server's
 * annotations; the turn is traced with OpenTelemetry, and its spans are
 * printed as a tree (an in-memory exporter).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { ai, type Approval } from "functai";
import { mcpTools } from "functai/mcp";
import { otel } from "functai/otel";
import { bold, cyan, deskBrain, dim, header, json, model, say } from "./shared.js";
import { spanTree } from "./span-tree.js";

const here = dirname(fileURLToPath(import.meta.url));

export async function mcpAndTraces(store: string): Promise<void> {
  header("5. MCP tools and OpenTelemetry");
  say(dim("The desk again, but find_order and refund come from an MCP server, a child process speaking MCP over stdio."));
  const ledger = join(store, "mcp-ledger.txt");
  const client = new Client({ name: "functai-demo", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", join(here, "orders-server.ts"), ledger] }));
  try {
    const tools = await mcpTools(client);
    say(`  the server's tools: ${tools.map((t) => `${bold(t.name)} (${t.info.annotations?.readOnlyHint ? "readOnlyHint" : "no readOnlyHint"}: ${t.toolEffects})`).join(", ")}`);

    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const desk = ai("desk", { description: "Help the customer. Refund lost orders in full.", input: { message: z.string() }, output: z.string(), tools });
    // asked only about what changes things: find_order reads, so it runs without asking
    const manager = (call: Approval): true => {
      say(`  asked: ${call.name} ${json(call.input)} → yes`);
      return true;
    };
    const reply = await desk("Order A-1042 never arrived. Refund it, please.", {
      lm: model(deskBrain),
      approve: manager,
      plugins: [otel({ tracer: provider.getTracer("functai-demo") })],
    });
    say(`  answer: ${cyan(reply)}`);
    const refunds = existsSync(ledger) ? readFileSync(ledger, "utf8").trim().split("\n") : [];
    say(`  the server's ledger: ${json(refunds)}`);
    say();
    say(`  the spans ${dim("(GenAI conventions; no message text unless otel({ content: true })):")}`);
    for (const line of spanTree(exporter.getFinishedSpans())) say(`    ${line}`);
    await provider.shutdown();
  } finally {
    await client.close();
  }
}
