/**
 * hunt 81: reading an answer whose output is not plain text.
 * - An output with a default (`z.number().default(3)`,
 *   `z.string().default("unknown")`) whose reply's `<result>` block is empty
 *   (the model left the value out, as the schema it was shown allows): the
 *   reply was refused as empty, asked again (paid twice), then the call
 *   failed output-invalid, the default never used. An empty answer is now
 *   read as no value, which the schema gives its default (or undefined,
 *   `.optional()`); an output that needs a value still refuses it.
 * - An object or a list written loosely, with a trailing comma or as a
 *   Python dict (`{'city': 'Paris', 'sunny': True}`, as small local models
 *   write it): refused as not valid JSON, asked again, paid twice.
 *   Decided: such an answer is asked again, as test/lm/read-output-json.test.ts
 *   says (a `<tool_call>` block so written is read: hunt81-loose-call-json);
 *   what is kept here is that an output that takes text keeps it as written.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { openai } from "../../src/providers/openai.js";
import { mockServer } from "../providers/server.js";

const completion = (content: string) => ({
  id: "chatcmpl-81",
  object: "chat.completion",
  created: 1764400081,
  model: "qwen2.5:7b",
  choices: [{ index: 0, message: { role: "assistant", content }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 80, completion_tokens: 9, total_tokens: 89 },
});

/** What `output` reads from `reply` (a second reply queued: the model asked again), and how many replies were paid for. */
async function answerOf(output: z.ZodType, reply: string): Promise<{ value: unknown; paid: number } | { code: string; paid: number }> {
  const server = await mockServer();
  server.reply({ json: completion(reply) }, { json: completion(reply) });
  const lm = openai({ model: "qwen2.5:7b", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
  const f = ai("weather", { description: "The weather in the city.", input: { city: z.string() }, output });
  try {
    return { value: await f("Paris", { lm }), paid: server.requests.length };
  } catch (e) {
    return { code: (e as { code: string }).code, paid: server.requests.length };
  } finally {
    await server.close();
  }
}

describe("an answer left out where the output has a default", () => {
  it("an empty <result> block is the output's default, read at the first reply", async () => {
    expect(await answerOf(z.number().default(3), "<result>\n\n</result>")).toEqual({ value: 3, paid: 1 });
    expect(await answerOf(z.string().default("unknown"), "<result>\n</result>")).toEqual({ value: "unknown", paid: 1 });
    expect(await answerOf(z.number().optional(), "<result></result>")).toEqual({ value: undefined, paid: 1 });
  });

  it("an output that needs a value still refuses an empty answer (asked again once)", async () => {
    expect(await answerOf(z.number(), "<result>\n\n</result>")).toEqual({ code: "output-invalid", paid: 2 });
    expect(await answerOf(z.object({ temp: z.number() }), "<result>\n</result>")).toEqual({ code: "output-invalid", paid: 2 });
  });
});

describe("an object or a list written loosely", () => {
  const report = z.object({ city: z.string(), sunny: z.boolean(), notes: z.array(z.string()).nullable() });
  it("an output that takes text keeps the text as written; what is not a value is still refused", async () => {
    expect(await answerOf(z.union([z.string(), report]), "<result>\n{'city': 'Paris'}\n</result>")).toEqual({ value: "{'city': 'Paris'}", paid: 1 });
    expect(await answerOf(report, "<result>\n{'city': Paris, 'sunny': True}\n</result>")).toEqual({ code: "output-invalid", paid: 2 });
  });
});
