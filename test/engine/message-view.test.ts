/**
 * A request's messages are a view of the loop's growing history (no copy per
 * step). A provider must see what the request held when it was made — never
 * a later message — and a provider that changes its request changes only its
 * own copy, as it did when every request got a copy.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { messagesView } from "../../src/engine/message-view.js";
import type { LMRequest, Message } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";

const say = (i: number): Message => ({ role: "user", content: `m${i}` });

/** A list that counts how many of its elements were read (through a proxy over a plain array). */
function counted(n: number): { list: Message[]; reads: () => number } {
  let reads = 0;
  const list = new Proxy(Array.from({ length: n }, (_, i) => say(i)), {
    get(target, prop, receiver) {
      if (typeof prop === "string" && /^\d+$/.test(prop)) reads++;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { list, reads: () => reads };
}

describe("messagesView", () => {
  it("holds the first `length` messages however the list grows after it was made", () => {
    const history = [say(0), say(1)];
    const view = messagesView(history, history.length);
    history.push(say(2), say(3));
    expect(view.length).toBe(2);
    expect(view[1]).toBe(history[1]);
    expect(view[2]).toBeUndefined();
    expect(2 in view).toBe(false);
    expect(1 in view).toBe(true);
    expect(Array.isArray(view)).toBe(true);
    expect([...view]).toEqual([say(0), say(1)]);
    expect(view.map((m) => m.content)).toEqual(["m0", "m1"]);
    expect(view.at(-1)).toEqual(say(1));
    expect(JSON.parse(JSON.stringify(view))).toEqual([say(0), say(1)]);
    expect(Object.keys(view)).toEqual(["0", "1"]);
    expect(view).toEqual([say(0), say(1)]);
    // still the same after more growth, and after being read in every way above
    history.push(say(4));
    expect(view).toHaveLength(2);
  });

  it("a write goes to the view's own copy: the history and other views are untouched", () => {
    const history = [say(0), say(1), say(2)];
    const early = messagesView(history, 2);
    const later = messagesView(history, 3);
    early.push(say(9));
    early[0] = say(8);
    later.splice(1, 1);
    expect(early.map((m) => m.content)).toEqual(["m8", "m1", "m9"]);
    expect(later.map((m) => m.content)).toEqual(["m0", "m2"]);
    expect(history.map((m) => m.content)).toEqual(["m0", "m1", "m2"]);
    expect(messagesView(history, 3).map((m) => m.content)).toEqual(["m0", "m1", "m2"]);
    expect(() => Object.freeze(messagesView(history, 1))).toThrow(TypeError);
  });

  it("costs O(1) to make: no message of the history is read or copied until the view is read", () => {
    const { list, reads } = counted(1000);
    const views = Array.from({ length: 1000 }, (_, i) => messagesView(list, i + 1));
    expect(reads()).toBe(0);
    expect(views[999]!.length).toBe(1000);
    expect(views[499]![10]).toEqual(say(10));
    expect(reads()).toBe(1);
    // reading more than an index copies the view's own messages, once
    expect(views[4]!.map((m) => m.content)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expect(views[4]!.filter(() => true)).toHaveLength(5);
    expect(reads()).toBe(6);
  });
});

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
