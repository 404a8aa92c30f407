/**
 * hunt 131: tools offered as text (`nativeTools: false`), a model that writes
 * all its calls as one list inside one `<tool_call>` block.
 *
 * Qwen's and Hermes' form is one JSON object per block (`<tool_call>\n{"name":
 * …, "arguments": {…}}\n</tool_call>`, as their chat templates and vLLM's
 * hermes parser have it), but models given several calls to make sometimes
 * write them as a JSON list in one block, or as Llama's pythonic list
 * (`[get_weather(city="Paris")]`, which mlx-lm's and rlx's readers read
 * wrapped in tags too). Read, such a block was one call with `inputError`
 * (the list is no object): no tool ran, and the model was asked again. Now
 * each call of the list is a call, as a `<tool_calls>` list (Hunyuan) and a
 * bare pythonic reply already are. (`<TOOL_CALL>` in capitals is no model's
 * form, nor the one functai asks for: it stays text, as it was.)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { chatCompletion } from "./fixtures/hunt51-wire.js";
import { modelsOver } from "./fixtures/models.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt } = modelsOver(() => server, { gpt: "Qwen/Qwen2.5-7B-Instruct", apiKey: "none", maxRetries: 0 });
const completion = (content: string) => chatCompletion(content, { model: "Qwen/Qwen2.5-7B-Instruct", usage: [120, 30] });

const seen: unknown[] = [];
const weather = tool("get_weather", { description: "The forecast.", input: { city: z.string() }, effects: "reads" }, (input) => {
  seen.push(input);
  return { forecast: "sun" };
});
const forecast = ai("forecast", { description: "Answer about the weather.", input: { question: z.string() }, tools: [weather] });

describe("tools as text: a list of calls in one <tool_call> block is those calls", () => {
  const LISTS: { name: string; block: string }[] = [
    {
      name: "a JSON list (Hermes' keys)",
      block:
        '<tool_call>\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {"city": "Lyon"}}]\n</tool_call>',
    },
    {
      name: "a JSON list (functai's keys)",
      block: '<tool_call>\n[{"name": "get_weather", "input": {"city": "Paris"}}, {"name": "get_weather", "input": {"city": "Lyon"}}]\n</tool_call>',
    },
    { name: "a pythonic list", block: '<tool_call>\n[get_weather(city="Paris"), get_weather(city="Lyon")]\n</tool_call>' },
  ];
  for (const { name, block } of LISTS) {
    it(`${name}: each call runs once, in order`, async () => {
      seen.length = 0;
      server.reply({ json: completion(block) }, { json: completion("<result>\nSun in Paris and Lyon.\n</result>") });
      await expect(forecast("Weather in Paris and Lyon?", { lm: gpt({ nativeTools: false }) })).resolves.toBe("Sun in Paris and Lyon.");
      expect(seen).toEqual([{ city: "Paris" }, { city: "Lyon" }]);
      expect(server.requests).toHaveLength(2);
    });
  }
});
