/**
 * hunt 139: tools offered as text, a reply that holds calls of both kinds:
 * some the server read itself (native `tool_calls`: a server whose parser
 * reads the model's calls whatever was offered) and a `<tool_call>` block
 * left in the text. The calls read from the text were named `call_1`,
 * `call_2`, … whatever the native calls' ids were, and the ids a server
 * gives can be those (`call_1` from a server that numbers its calls, or the
 * `call_0`, `call_1` functai makes for calls given without one: see
 * replyIds). Two calls of one id were each run, but their results went back
 * as two `<tool_result id="call_1">` blocks the model could not tell apart.
 * Now the ids made for text calls are none of the reply's native ones (the
 * next free `call_<n>`), as hunt 134 made ids unique within a native reply.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { chunkEvent, completion, usageEvent } from "../providers/fixtures/hunt51-wire.js";
import { modelsOver, streamed } from "../providers/fixtures/models.js";
import { ask } from "../providers/fixtures/lookup-order.js";
import { type MockServer, type Reply, eachTestServer } from "../providers/server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "Qwen/Qwen2.5-7B-Instruct";
const { gpt } = modelsOver(() => server, { gpt: MODEL, apiKey: "none", maxRetries: 0 });
const lm = () => gpt({ nativeTools: false });

/** A native call of lookup_order as the server sends it, its id left out where undefined. */
const native = (order: string, id?: string) => ({
  ...(id === undefined ? {} : { id }),
  type: "function",
  function: { name: "lookup_order", arguments: JSON.stringify({ order_id: order }) },
});
const BLOCK = '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1044"}}\n</tool_call>';

/** The reply: `calls` read by the server, BLOCK left in the text; whole, or streamed (the text first, then each call). */
function reply(calls: ReturnType<typeof native>[], how: "whole" | "streamed"): Reply {
  if (how === "whole") return { json: completion({ content: BLOCK, tool_calls: calls }, "tool_calls", MODEL) };
  return {
    sse:
      chunkEvent({ role: "assistant", content: "" }, null, MODEL) +
      chunkEvent({ content: BLOCK.slice(0, 20) }, null, MODEL) +
      chunkEvent({ content: BLOCK.slice(20) }, null, MODEL) +
      calls.map((c, index) => chunkEvent({ tool_calls: [{ index, ...c }] }, null, MODEL)).join("") +
      chunkEvent({}, "tool_calls", MODEL) +
      usageEvent(40, 22, MODEL) +
      "data: [DONE]\n\n",
  };
}

const FINAL: Reply = { json: completion({ content: "<result>\nAll three shipped.\n</result>" }, "stop", MODEL) };

const statuses: Record<string, string> = { "A-1042": "shipped", "A-1043": "packed", "A-1044": "delivered" };
const seen: string[] = [];
const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => {
  seen.push(order_id);
  return { order_id, status: statuses[order_id] };
});
const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });

/** The `<tool_result>` blocks the next request sends: each one's id and the order its result names. */
function results(): { id: string; order: string | undefined }[] {
  const messages = server.requests[1]!.body.messages as { role: string; content: string }[];
  const text = messages.map((m) => m.content).join("\n");
  return [...text.matchAll(/<tool_result name="lookup_order" id="([^"]*)">\n([\s\S]*?)\n<\/tool_result>/g)].map(([, id, body]) => ({
    id: id!,
    order: /"order_id":"([^"]+)"/.exec(body!)?.[1],
  }));
}

describe("a text call's id is none of its reply's native calls' ids", () => {
  for (const how of ["whole", "streamed"] as const) {
    for (const [given, calls] of [
      ["two calls given no id (made call_0, call_1)", [native("A-1042"), native("A-1043")]],
      ["a call the server named call_1", [native("A-1042", "call_1")]],
    ] as const) {
      it(`${how}, ${given}: each call runs, each result goes back under an id of its own`, async () => {
        seen.length = 0;
        server.reply(reply([...calls], how), FINAL);
        const turn = answer.stream("Where are A-1042, A-1043 and A-1044?", { lm: lm() });
        for await (const _ of turn);
        expect(await turn).toBe("All three shipped.");
        const orders = [...calls.map((c) => (JSON.parse(c.function.arguments) as { order_id: string }).order_id), "A-1044"];
        expect(seen).toEqual(orders);
        const sent = results();
        expect(sent.map((r) => r.order)).toEqual(orders);
        expect(new Set(sent.map((r) => r.id)).size).toBe(orders.length);
      });
    }
  }

  it("read by the model layer: the text call is call_2 beside a native call_1, call_3 beside call_1 and call_2", async () => {
    for (const [ids, made] of [
      [["call_1"], "call_2"],
      [["call_1", "call_2"], "call_3"],
      [["call_7"], "call_1"],
    ] as const) {
      server.reply(
        reply(
          ids.map((id, i) => native(`A-104${i + 2}`, id)),
          "whole",
        ),
      );
      const read = fromTextResponse(await lm().generate(ask));
      expect(read.toolCalls.map((c) => c.id)).toEqual([...ids, made]);
      expect(read.toolCalls.at(-1)?.input).toEqual({ order_id: "A-1044" });
    }
  });

  it("streamed: the same", async () => {
    server.reply(reply([native("A-1042", "call_1")], "streamed"));
    const read = fromTextResponse(await lm().generate(ask, streamed));
    expect(read.toolCalls.map((c) => c.id)).toEqual(["call_1", "call_2"]);
  });
});
