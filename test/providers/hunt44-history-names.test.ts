/**
 * A history's tool-call names are sent back as the providers take them. A
 * model may call a tool by a name that is no tool's (too long, empty, with a
 * dot: Claude has called tools by names hundreds of characters long, and a
 * compatible server may stream a call with no name); the engine tells the
 * model so, and the call stays in the history. Anthropic refused every later
 * request of that conversation (`messages.1.content.0.tool_use.name: String
 * should have at most 200 characters`, `… at least 1 character`): its names
 * were sent as they were. OpenAI's were cleaned of refused characters but
 * not cut to the 64 its tool names may have. Now both send such a name as
 * one any tool may have (1–64 letters, digits, _ or -); a name both take is
 * sent as it is, and the tools' own names are untouched.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest, Message, ToolSpec } from "../../src/lm/types.js";
import { modelsOver } from "./fixtures/models.js";
import { type MockServer, type Recorded, type Reply, eachTestServer } from "./server.js";

const lookup: ToolSpec = {
  name: "lookup_order",
  description: "The order's status.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const LONG = `lookup_order_${"and_then_check_the_carrier_".repeat(10)}`; // 273 characters
const BAD = [LONG, "", "functions.lookup_order", "lookup_order"];
/** A history whose one reply called tools by these names, each told it is no tool (the last ran). */
const history = (names: string[]): Message[] => [
  { role: "system", content: "Function: answer\n\nAnswer the customer's question." },
  { role: "user", content: "<question>\nWhere is A-1042?\n</question>" },
  { role: "assistant", content: "", toolCalls: names.map((name, i) => ({ id: `toolu_0${i}`, name, input: { order_id: "A-1042" } })) },
  ...names.map(
    (name, i): Message => ({ role: "tool", toolCallId: `toolu_0${i}`, name, content: `Error: there is no tool named ${JSON.stringify(name)}.` }),
  ),
];
const request = (names: string[]): LMRequest => ({ messages: history(names), tools: [lookup] });

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt, claude } = modelsOver(() => server, { gpt: "gpt-4.1-mini", claude: "claude-haiku-4-5", apiKey: "test-key", maxRetries: 0 });

const message = (text: string) => ({
  id: "msg_01",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5-20251001",
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 40, output_tokens: 5 },
});
/** Anthropic's check of a history's tool_use names, answered with its 400 (the wording of its errors). */
const anthropicChecks = (r: Recorded): Reply => {
  const messages = r.body.messages as { content: string | { type: string; name?: string }[] }[];
  for (const [i, m] of messages.entries()) {
    if (typeof m.content === "string") continue;
    for (const [j, block] of m.content.entries()) {
      if (block.type !== "tool_use") continue;
      const name = block.name ?? "";
      const wrong =
        name.length < 1 ? "String should have at least 1 character" : name.length > 200 ? "String should have at most 200 characters" : undefined;
      if (wrong !== undefined)
        return {
          status: 400,
          json: { type: "error", error: { type: "invalid_request_error", message: `messages.${i}.content.${j}.tool_use.name: ${wrong}` } },
        };
    }
  }
  return { json: message("It has shipped.") };
};
const sentNames = (r: Recorded, provider: "anthropic" | "openai"): string[] =>
  provider === "anthropic"
    ? (r.body.messages as { content: string | { type: string; name: string }[] }[]).flatMap((m) =>
        typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_use").map((b) => b.name),
      )
    : (r.body.messages as { tool_calls?: { function: { name: string } }[] }[]).flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));

describe("a history's tool-call names that are no tool's", () => {
  it("anthropic: a name too long or empty no longer makes every later request a 400", async () => {
    server.reply({ by: anthropicChecks });
    const reply = await claude().generate(request(BAD));
    expect(reply.text).toBe("It has shipped.");
  });

  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: each is sent as 1–64 letters, digits, _ or -; a name that is so, and the tools' names, as they are`, async () => {
      server.reply(
        provider === "anthropic"
          ? { json: message("ok") }
          : {
              json: {
                id: "chatcmpl-1",
                object: "chat.completion",
                created: 1764400000,
                model: "gpt-4.1-mini",
                choices: [{ index: 0, message: { role: "assistant", content: "ok", refusal: null }, finish_reason: "stop" }],
                usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
              },
            },
      );
      await (provider === "anthropic" ? claude() : gpt()).generate(request(BAD));
      const names = sentNames(server.requests[0]!, provider);
      expect(names).toHaveLength(BAD.length);
      for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(names[0]).toBe(LONG.slice(0, 64));
      expect(names.at(-1)).toBe("lookup_order");
      const tools = server.requests[0]!.body.tools as { name?: string; function?: { name: string } }[];
      expect(tools.map((t) => t.name ?? t.function?.name)).toEqual(["lookup_order"]);
    });
  }
});
