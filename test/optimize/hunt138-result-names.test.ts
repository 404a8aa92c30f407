/**
 * A written example whose results name no call by id (`r1`, `r2`), given in another order than the calls: each
 * call was answered by the next result in order, whatever tool it came from, so the model was shown the refund's
 * "refunded B-2210" as what lookup_order returned, and the order's status as the refund's. A result with no call
 * of its id answers a call of its own tool first.
 */
import { describe, expect, it } from "vitest";
import type { AIState } from "../../src/index.js";
import { status } from "../evaluate/desk.js";
import { modelsOver } from "../providers/fixtures/models.js";
import { eachTestServer, fixtureJson, type MockServer } from "../providers/server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt, claude } = modelsOver(() => server);

const LOOKUP = '{"item":"kettle","status":"stuck at the carrier"}';
const state: AIState = {
  instructions: status.state().instructions,
  demos: [
    {
      inputs: { question: "Where is A-1042? And refund B-2210." },
      outputs: { result: "stuck at the carrier" },
      steps: [
        {
          text: "",
          toolCalls: [
            { id: "c1", name: "lookup_order", input: { order_id: "A-1042" } },
            { id: "c2", name: "refund", input: { order_id: "B-2210" } },
          ],
          results: [
            { id: "r2", name: "refund", content: "refunded B-2210" },
            { id: "r1", name: "lookup_order", content: LOOKUP },
          ],
        },
      ],
    },
  ],
};

type Json = Record<string, any>;

describe("a written example whose results name no call by id", () => {
  it("openai: each call is answered by its own tool's result", async () => {
    server.reply({ json: fixtureJson("openai/text.json") });
    await status.withState(state)("Where is D-4410?", { lm: gpt() });
    const messages = server.requests[0]!.body.messages as Json[];
    const [lookup, refund] = messages[2]!.tool_calls as Json[];
    const answer = (id: string) => messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content;
    expect([answer(lookup!.id), answer(refund!.id)]).toEqual([LOOKUP, "refunded B-2210"]);
  });

  it("anthropic: each tool_use is answered by its own tool's result", async () => {
    server.reply({ json: fixtureJson("anthropic/text.json") });
    await status.withState(state)("Where is D-4410?", { lm: claude() });
    const messages = server.requests[0]!.body.messages as Json[];
    const uses = (messages[1]!.content as Json[]).filter((b) => b.type === "tool_use");
    const results = (messages[2]!.content as Json[]).filter((b) => b.type === "tool_result");
    const answer = (id: string) => results.find((b) => b.tool_use_id === id)?.content;
    expect(uses.map((u) => [u.name, answer(u.id)])).toEqual([
      ["lookup_order", LOOKUP],
      ["refund", "refunded B-2210"],
    ]);
  });
});
