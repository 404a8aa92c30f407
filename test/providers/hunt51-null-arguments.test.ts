/**
 * A call of a tool that takes nothing, its arguments JSON `null`: the text
 * `"null"` (GLM and Copilot-backed gateways send it; clients that wrote an
 * empty call as `null` teach models to repeat it), or, from an
 * Anthropic-compatible server, `tool_use.input: null`. No arguments, as an
 * empty `arguments` already is read: `{}`. It was read as the input `null`,
 * so the tool refused it ("expected object, received null", the tool never
 * run) while the history sent back said the call was `{}`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { chunkEvent, completion, usageEvent } from "./fixtures/hunt51-wire.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const now: ToolSpec = { name: "current_time", description: "Now.", parameters: { type: "object", properties: {} } };
const ask: LMRequest = { messages: [{ role: "user", content: "What time is it?" }], tools: [now] };
const glm = () => openai({ model: "zai-org/GLM-4.6", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
const claudeLike = () => anthropic({ model: "glm-4.6", apiKey: "k", baseURL: server.url, maxRetries: 0 });
const nullCall = { id: "call_7", type: "function", function: { name: "current_time", arguments: "null" } };

describe("arguments that are JSON null are no arguments: {}", () => {
  it("openai, whole", async () => {
    server.reply({ json: completion({ tool_calls: [nullCall] }, "tool_calls") });
    expect((await glm().generate(ask)).toolCalls).toEqual([{ id: "call_7", name: "current_time", input: {} }]);
  });

  it("openai, streamed", async () => {
    server.reply({
      sse: `${chunkEvent({ role: "assistant", tool_calls: [{ index: 0, ...nullCall }] }, null)}${chunkEvent({}, "tool_calls")}${usageEvent()}data: [DONE]\n\n`,
    });
    expect((await glm().generate(ask, { onText: () => {} })).toolCalls).toEqual([{ id: "call_7", name: "current_time", input: {} }]);
  });

  it("anthropic-compatible, whole: tool_use.input null", async () => {
    server.reply({
      json: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "glm-4.6",
        content: [{ type: "tool_use", id: "toolu_1", name: "current_time", input: null }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 5 },
      },
    });
    expect((await claudeLike().generate(ask)).toolCalls).toEqual([{ id: "toolu_1", name: "current_time", input: {} }]);
  });

  it("end to end: the tool runs", async () => {
    let ran = 0;
    const currentTime = tool("current_time", { description: "Now.", input: {}, effects: "reads" }, () => {
      ran++;
      return { now: "12:00" };
    });
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [currentTime] });
    server.reply({ json: completion({ tool_calls: [nullCall] }, "tool_calls") }, { json: completion({ content: "<result>\nNoon.\n</result>" }) });
    expect(await answer("What time is it?", { lm: glm() })).toBe("Noon.");
    expect(ran).toBe(1);
  });

  it("arguments that are JSON but no object (a list, a number) are still handed on as they are", async () => {
    server.reply({ json: completion({ tool_calls: [{ ...nullCall, function: { name: "current_time", arguments: "[1]" } }] }, "tool_calls") });
    expect((await glm().generate(ask)).toolCalls[0]!.input).toEqual([1]);
  });
});
