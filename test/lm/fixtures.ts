/**
 * The tests of tools offered as text share this: a local OpenAI-compatible
 * server (started before each test, closed after), a desk whose
 * `lookup_order` tool records what it was given, and the model on that
 * server with native tools off.
 */
import { afterEach, beforeEach } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { openai } from "../../src/providers/openai.js";
import { mockServer, type MockServer } from "../providers/server.js";

export function textToolsDesk() {
  const local: { server: MockServer } = { server: undefined as never };
  beforeEach(async () => {
    local.server = await mockServer();
  });
  afterEach(async () => {
    await local.server.close();
  });
  const seen: unknown[] = [];
  const lookup = tool(
    "lookup_order",
    { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    (input) => {
      seen.push(input);
      return { status: "shipped" };
    },
  );
  const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });
  const lm = () => openai({ model: "llama3.1:8b", apiKey: "none", baseURL: `${local.server.url}/v1`, nativeTools: false });
  return { local, seen, answer, lm };
}
