/**
 * hunt 81: Llama 3.2 (and Llama 4) call tools in "pythonic" form, a Python
 * list of calls as the reply's whole text: `[lookup_order(order_id="A-1042")]`.
 * - Tools offered natively, on vLLM started without `--tool-call-parser
 *   pythonic` (or another server that does not read that form), the call is
 *   left in `content` with no `tool_calls`: it was read as the answer, the
 *   caller given the call's text as the result and the tool never run.
 *   Now it is refused (`provider-response`) as the other unread forms are,
 *   naming the parser to start the server with.
 * - Tools offered as text (`nativeTools: false`), a model that answers in its
 *   own form instead of a `<tool_call>` block had the same fate. Now a reply
 *   that is nothing but such a list, each call named as an identifier with
 *   keyword arguments written as Python literals, is read as those calls.
 *   Anything else (words around it, a positional argument, a name or an
 *   expression as an argument, the list inside `<result>`) is text as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { openai } from "../../src/providers/openai.js";
import { chatCompletion } from "./fixtures/hunt51-wire.js";
import { ask } from "./fixtures/lookup-order.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const completion = (content: string) => chatCompletion(content, { model: "meta-llama/Llama-3.2-3B-Instruct", usage: [120, 14] });
const llama = (nativeTools: boolean) =>
  openai({ model: "meta-llama/Llama-3.2-3B-Instruct", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0, nativeTools });

const seen: unknown[] = [];
const weather = tool(
  "get_weather",
  {
    description: "The forecast.",
    input: { city: z.string(), days: z.int(), metric: z.boolean().optional(), note: z.string().nullable().optional() },
    effects: "reads",
  },
  (input) => {
    seen.push(input);
    return { forecast: "sun" };
  },
);
const forecast = ai("forecast", { description: "Answer about the weather.", input: { question: z.string() }, tools: [weather] });

const read = (text: string) => fromTextResponse({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });

describe("tool calls in Llama's pythonic form", () => {
  it("tools offered natively: a reply that is only a pythonic call is refused, naming the parser, not returned as the answer", async () => {
    server.reply({ json: completion('[lookup_order(order_id="A-1042")]') });
    const e = await llama(true)
      .generate(ask)
      .then(
        () => undefined,
        (x: unknown) => x,
      );
    expect(e).toMatchObject({ code: "provider-response" });
    expect((e as Error).message).toMatch(/--tool-call-parser pythonic/);
    expect((e as Error).message).toContain('"lookup_order"');
  });

  it("tools offered natively: a pythonic-looking text naming no offered tool, or with words around it, is an answer", async () => {
    server.reply({ json: completion('[print(x="A-1042")]') }, { json: completion('Call it as [lookup_order(order_id="A-1042")] yourself.') });
    await expect(llama(true).generate(ask)).resolves.toMatchObject({ text: '[print(x="A-1042")]', toolCalls: [] });
    await expect(llama(true).generate(ask)).resolves.toMatchObject({ toolCalls: [] });
  });

  it("tools as text: the call runs once with its Python literals read, and the answer after it is the result", async () => {
    seen.length = 0;
    server.reply(
      { json: completion("[get_weather(city='Paris', days=3, metric=True, note=None), get_weather(city=\"Lyon\", days=-1)]") },
      { json: completion("<result>\nSun in Paris and Lyon.\n</result>") },
    );
    await expect(forecast("Weather in Paris and Lyon?", { lm: llama(false) })).resolves.toBe("Sun in Paris and Lyon.");
    expect(seen).toEqual([
      { city: "Paris", days: 3, metric: true, note: null },
      { city: "Lyon", days: -1 },
    ]);
  });

  it("tools as text, streamed: the call's text is no answer, so no text event shows it", async () => {
    seen.length = 0;
    const sse = (content: string) =>
      `${[{ role: "assistant", content: "" }, ...content.match(/[\s\S]{1,5}/g)!.map((c) => ({ content: c })), {}]
        .map(
          (delta, i, all) =>
            `data: ${JSON.stringify({ id: "chatcmpl-81", object: "chat.completion.chunk", created: 1764400081, model: "meta-llama/Llama-3.2-3B-Instruct", choices: [{ index: 0, delta, logprobs: null, finish_reason: i === all.length - 1 ? "stop" : null }] })}\n\n`,
        )
        .join("")}data: [DONE]\n\n`;
    server.reply({ sse: sse('[get_weather(city="Paris", days=3)]') }, { sse: sse("<result>\nSun in Paris.\n</result>") });
    const s = forecast.stream("Weather in Paris?", { lm: llama(false) });
    const texts: string[] = [];
    for await (const e of s) if (e.type === "text") texts.push(e.delta);
    await expect(s).resolves.toBe("Sun in Paris.");
    expect(texts.join("")).toBe("Sun in Paris.");
    expect(seen).toEqual([{ city: "Paris", days: 3 }]);
  });

  it("tools as text: only a reply that is nothing but such a list is read as calls", () => {
    for (const text of [
      'Sure: [get_weather(city="Paris", days=3)]',
      '[get_weather("Paris", 3)]',
      "[get_weather(city=paris, days=3)]",
      "[get_weather(city='Paris', days=1+2)]",
      '<result>\n[get_weather(city="Paris", days=3)]\n</result>',
      "[1, 2, 3]",
      "[]",
    ]) {
      const r = read(text);
      expect([text, r.toolCalls]).toEqual([text, []]);
      expect(r.text).toBe(text);
    }
    const r = read('```python\n[get_weather(city="Paris\\n", days=3, tags=["a", \'b\'], extra={"k": (1, 2.5)})]\n```');
    expect(r.toolCalls).toEqual([
      { id: "call_1", name: "get_weather", input: { city: "Paris\n", days: 3, tags: ["a", "b"], extra: { k: [1, 2.5] } } },
    ]);
    expect(r.finishReason).toBe("tool_calls");
  });
});
