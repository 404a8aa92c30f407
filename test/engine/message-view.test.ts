/**
 * A request's messages are the loop's history as it was when the request was
 * made (a list of its own, made when first read: engine/ai-call.ts
 * requestOf). A provider must see what the request held when it was made —
 * never a later message — and a provider that changes its request's list
 * changes only its own.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, Message } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";

describe("the tool loop's requests", () => {
  const lookup = tool("lookup", { description: "Look it up.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({ id }));
  const fn = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup], maxSteps: 10 });
  const replies = (n: number) => [...Array.from({ length: n }, (_, k) => ({ toolCalls: [{ name: "lookup", input: { id: `x${k}` } }] })), "done"];

  it("each request a provider kept still holds what it was sent, after the turn went on", async () => {
    const seen: string[] = [];
    const lm = scripted(replies(5).map((r) => (request: LMRequest) => {
      seen.push(JSON.stringify(request.messages));
      return r;
    }));
    expect(await fn("Look it all up.", { lm })).toBe("done");
    expect(lm.requests.map((r) => JSON.stringify(r.messages))).toEqual(seen);
    expect(lm.requests.map((r) => r.messages.length)).toEqual([2, 4, 6, 8, 10, 12]);
  });

  it("a provider that changes its request's messages changes nothing the next request holds", async () => {
    const sent: Message[][] = [];
    const lm = scripted(replies(3).map((r) => (request: LMRequest) => {
      sent.push(JSON.parse(JSON.stringify(request.messages)) as Message[]);
      request.messages.push({ role: "user", content: "injected by the provider" });
      request.messages[0] = { role: "system", content: "replaced by the provider" };
      return r;
    }));
    expect(await fn("Look it all up.", { lm })).toBe("done");
    expect(sent.map((m) => m.length)).toEqual([2, 4, 6, 8]);
    for (const messages of sent) expect(messages.filter((m) => m.content.includes("by the provider"))).toEqual([]);
    // each request's own copy holds its changes
    expect(lm.requests[1]!.messages.at(-1)!.content).toBe("injected by the provider");
    expect(lm.requests[1]!.messages).toHaveLength(5);
  });
});
