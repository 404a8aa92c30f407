/**
 * The tool loop fingerprints requests incrementally (each message hashed
 * once, as it is added); resuming finds a recorded reply by that key. So the
 * key must stay a pure function of the request: computed a message at a
 * time, or from scratch, in this version or the first, it is the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { requestFingerprint, requestKey, type RequestSeed } from "../../src/lm/fingerprint.js";
import type { Message } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";

const text = fc.string({ unit: "binary", maxLength: 40 });
const toolCall = fc.record({ id: text, name: text, input: fc.jsonValue({ maxDepth: 2 }) });
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("system" as const), content: text }),
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text, toolCalls: fc.array(toolCall, { maxLength: 3 }) }, { requiredKeys: ["role", "content"] }),
  fc.record({ role: fc.constant("tool" as const), toolCallId: text, name: text, content: text, isError: fc.constant(true as const) }, { requiredKeys: ["role", "toolCallId", "name", "content"] }),
);
const seed: fc.Arbitrary<RequestSeed> = fc.record({
  site: text,
  provider: text,
  model: text,
  temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
  maxTokens: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
  tools: fc.array(fc.record({ name: text, description: text, parameters: fc.constant({ type: "object" }) }), { maxLength: 3 }),
});

describe("incremental request fingerprints", () => {
  it("the key extended a message at a time equals the key computed from scratch, at every step", () => {
    fc.assert(
      fc.property(seed, fc.array(message, { maxLength: 30 }), (s, messages) => {
        const running = requestFingerprint(s);
        const history: Message[] = [];
        const views: Message[][] = [];
        for (const m of messages) {
          history.push(m);
          running.add(m);
          views.push(history.slice()); // a request's own list, as requestOf makes
          expect(running.key()).toBe(requestKey(s, history.slice()));
        }
        // a request made earlier keeps its key once the history has grown: its list holds only its own messages
        views.forEach((view, i) => expect(requestKey(s, view)).toBe(requestKey(s, messages.slice(0, i + 1))));
      }),
      { numRuns: 200 },
    );
  });

  it("a different request gets a different key (another message, one message fewer, another seed)", () => {
    fc.assert(
      fc.property(seed, fc.array(message, { minLength: 1, maxLength: 10 }), message, (s, messages, extra) => {
        const key = requestKey(s, messages);
        expect(requestKey(s, messages.slice(0, -1))).not.toBe(key);
        fc.pre(JSON.stringify(extra) !== JSON.stringify(messages.at(-1)));
        expect(requestKey(s, [...messages.slice(0, -1), extra])).not.toBe(key);
        expect(requestKey({ ...s, model: `${s.model}-other` }, messages)).not.toBe(key);
      }),
      { numRuns: 200 },
    );
  });

  it("gives the keys journals written by the first version hold", () => {
    // made with the first version's Fingerprint (a seed of [site, provider, model, temperature, maxTokens, tools], then each message)
    const tools = [{ name: "find_order", description: "The order's status.", parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] } }];
    const s: RequestSeed = { site: "answer#1", provider: "openai", model: "gpt-4.1-mini", temperature: 0.2, tools };
    const messages: Message[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Where is A-1042? é😀" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "find_order", input: { order_id: "A-1042" } }] },
      { role: "tool", toolCallId: "call_1", name: "find_order", content: '{"order_id":"A-1042"}' },
    ];
    const golden = ["1rv9s26fcqt062zbk6cswu", "0a1smgdtldi1jl1sckuiml", "1pe33y46t2d0sbd773d4t8", "29yxgjuq8zo0mjt70esx1t"];
    expect(messages.map((_, i) => requestKey(s, messages.slice(0, i + 1)))).toEqual(golden);
  });

  it("each reply a turn records is keyed by its request's fingerprint, computed from scratch from what the model was sent", async () => {
    const lookup = tool("lookup", { description: "Look it up.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({ id, ok: true }));
    const fn = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup], maxSteps: 31 });
    const steps = 30;
    const lm = scripted([...Array.from({ length: steps }, (_, k) => ({ toolCalls: [{ name: "lookup", input: { id: `x${k}` } }] })), "done"]);
    const store = memoryStore();
    expect(await fn.conversation("keys", { store, lm, temperature: 0.5 }).send("Look everything up.")).toBe("done");
    const replies = (await store.read("keys")).filter((r) => r.kind === "reply") as unknown as { key: string; site: string }[];
    expect(replies).toHaveLength(steps + 1);
    expect(lm.requests).toHaveLength(steps + 1);
    lm.requests.forEach((request, i) => {
      // every request holds what it held when sent: its system and user message, then an assistant + tool message per step before it
      expect(request.messages).toHaveLength(2 + 2 * i);
      const s: RequestSeed = { site: replies[i]!.site, provider: lm.provider, model: lm.model, temperature: request.temperature, maxTokens: request.maxTokens, tools: request.tools };
      expect(replies[i]!.key).toBe(requestKey(s, [...request.messages]));
    });
    expect(new Set(replies.map((r) => r.key)).size).toBe(steps + 1);
  });
});
