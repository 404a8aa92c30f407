/**
 * Hunt 57: the thinking blocks a Claude reply gave with its tool calls go back
 * with them (see hunt51-thinking-history.test.ts) also when the turn is
 * resumed from the journal: the turn waits for an approval after the thinking
 * reply, and a new handle on the same store approves it; the next request's
 * assistant message starts with the blocks, unchanged. (They are kept on the
 * first call's `extraContent`, journaled with the reply.)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Waiting, ai, memoryStore, tool } from "../../src/index.js";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { thinkingMessage, withThinkingChecked } from "./fixtures/thinking.js";
import { type MockServer, type Reply, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const THINKING = {
  type: "thinking",
  thinking: "The customer wants A-1042 refunded: it never arrived.",
  signature: "EqQBCgIYAhIMrefundSig0123456789abcdef",
};
const REDACTED = { type: "redacted_thinking", data: "EmwKAhgBEgyRedactedData0123456789" };
const CALL = { type: "tool_use", id: "toolu_01RefundA1042xyz", name: "refund", input: { order_id: "A-1042" } };

const message = (content: unknown[], stop_reason: string) => thinkingMessage("msg_57", content, stop_reason);
const checked = (ok: Reply): Reply => withThinkingChecked(ok, [THINKING, REDACTED]);

const refunded: unknown[] = [];
const desk = () => {
  const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, (input) => {
    refunded.push(input);
    return "refunded";
  });
  return ai("desk", { description: "Handle refunds.", input: { question: z.string() }, tools: [refund] });
};
const claude = () => anthropic({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: server.url, maxRetries: 0 });

describe("thinking blocks go back with their calls when the turn is resumed from the journal", () => {
  it("approved later, on a new handle: the next request starts the assistant message with them, unchanged", async () => {
    refunded.length = 0;
    server.reply(
      { json: message([THINKING, REDACTED, { type: "text", text: "I will refund it." }, CALL], "tool_use") },
      checked({ json: message([{ type: "text", text: "<result>\nA-1042 refunded.\n</result>" }], "end_turn") }),
    );
    const store = memoryStore();
    const sent = desk().conversation("sam", { store, lm: claude(), approve: "changes" }).send("Order A-1042 never arrived. Refund it, please.");
    await expect(sent).rejects.toBeInstanceOf(Waiting);
    expect(server.requests).toHaveLength(1);
    expect(refunded).toEqual([]);

    // later, from the journal alone: a new function and a new handle on the same store
    const turn = (await desk().conversation("sam", { store, lm: claude() }).turns()).at(-1)!;
    expect(turn.state).toBe("waiting");
    expect(await turn.approve({ by: "maria" })).toBe("A-1042 refunded.");
    expect(refunded).toEqual([{ order_id: "A-1042" }]);

    expect(server.requests).toHaveLength(2);
    const assistant = (server.requests[1]!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "assistant").at(-1)!;
    expect(assistant.content).toEqual([THINKING, REDACTED, { type: "text", text: "I will refund it." }, CALL]);
  });
});

describe("the kept thinking is Anthropic's alone", () => {
  it("a history with it, sent to an OpenAI-compatible server: no `anthropic` in `extra_content`; another provider's extra still goes back", async () => {
    server.reply({
      json: {
        id: "chatcmpl-57",
        object: "chat.completion",
        created: 1764400000,
        model: "gpt-4.1-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
      },
    });
    const google = { google: { thought_signature: "CiQBVKhc7sig" } };
    const ask: LMRequest = {
      messages: [
        { role: "user", content: "Refund A-1042 and B-2210." },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "toolu_A", name: "refund", input: { order_id: "A-1042" }, extraContent: { anthropic: { thinking: [THINKING, REDACTED] } } },
            { id: "toolu_B", name: "refund", input: { order_id: "B-2210" }, extraContent: { ...google, anthropic: { thinking: [THINKING] } } },
          ],
        },
        { role: "tool", toolCallId: "toolu_A", name: "refund", content: "refunded" },
        { role: "tool", toolCallId: "toolu_B", name: "refund", content: "refunded" },
      ],
      tools: [],
    };
    const gpt = openai({ model: "gpt-4.1-mini", apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 0 });
    expect((await gpt.generate(ask)).text).toBe("done");
    const sent = server.requests[0]!.body.messages as { role: string; tool_calls?: Record<string, unknown>[] }[];
    const calls = sent.find((m) => m.role === "assistant")!.tool_calls!;
    expect(calls).toHaveLength(2);
    expect(calls[0]).not.toHaveProperty("extra_content");
    expect(calls[1]!.extra_content).toEqual(google);
    expect(JSON.stringify(sent)).not.toContain(THINKING.signature);
  });
});
