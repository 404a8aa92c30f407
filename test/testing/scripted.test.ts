import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };

async function streamed(lm: ReturnType<typeof scripted>): Promise<{ chunks: string[]; text: string }> {
  const chunks: string[] = [];
  const res = await lm.generate(ask, { onText: (d) => chunks.push(d) });
  return { chunks, text: res.text };
}

describe("scripted: replying as a model does", () => {
  it('form: "reply" writes a text answer in the reply form; chunks: n streams n characters a piece', async () => {
    const { chunks, text } = await streamed(scripted(["Hi Sam."], { form: "reply", chunks: 4 }));
    expect(text).toBe("<result>\nHi Sam.\n</result>");
    expect(chunks).toEqual(["<res", "ult>", "\nHi ", "Sam.", "\n</r", "esul", "t>"]);
  });

  it("a reply's chunks are streamed exactly, and its text is their concatenation", async () => {
    const { chunks, text } = await streamed(scripted([{ chunks: ["<re", "sult>\nH", "i\n</result>"] }], { form: "reply" }));
    expect(chunks).toEqual(["<re", "sult>\nH", "i\n</result>"]);
    expect(text).toBe("<result>\nHi\n</result>");
  });

  it("tool-call replies keep their text plain; text tools stream their <tool_call> blocks, as a model would", async () => {
    const lm = scripted([{ text: "Let me look.", toolCalls: [{ name: "find", input: { id: "A-1" } }] }], { form: "reply", nativeTools: false, chunks: 7 });
    const { chunks, text } = await streamed(lm);
    expect(text.startsWith("Let me look.\n<tool_call>\n")).toBe(true);
    expect(chunks.join("")).toBe(text);
  });

  it("a streamed call on it shows the answer's text without tags, and the answer", async () => {
    const find = tool("find", { description: "Finds an order.", input: { id: z.string() }, effects: "reads" }, ({ id }) => `${id}: shipped`);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [find] });
    const lm = scripted([{ toolCalls: [{ name: "find", input: { id: "A-1" } }] }, "A-1 shipped on Monday."], { form: "reply", chunks: 3 });
    const s = desk.stream({ message: "Where is A-1?" }, { lm });
    const events: TurnEvent[] = [];
    for await (const e of s) events.push(e);
    expect(await s).toBe("A-1 shipped on Monday.");
    const deltas = events.flatMap((e) => (e.type === "text" ? [e.delta] : []));
    expect(deltas.join("")).toBe("A-1 shipped on Monday.");
    expect(deltas.some((d) => d.includes("<") || d.includes(">"))).toBe(false);
    expect(events.find((e) => e.type === "reply" && e.toolCalls.length === 0)).toMatchObject({ text: "<result>\nA-1 shipped on Monday.\n</result>" });
  });

  it("chunks must be a whole number of characters; text and chunks must agree", async () => {
    // (refused when the model is made, before any call: see scripted-options.test.ts)
    expect(() => scripted(["x"], { chunks: 0 })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    await expect(scripted([{ text: "a", chunks: ["b"] }]).generate(ask)).rejects.toMatchObject({ code: "settings-invalid" });
  });
});

describe("scripted: tools as text (nativeTools: false)", () => {
  it("a reply's own chunks stream as given, then its tool calls as text", async () => {
    const lm = scripted([{ chunks: ["Le", "t me look."], toolCalls: [{ name: "find", input: { id: "A-1" } }] }], { nativeTools: false });
    const { chunks, text } = await streamed(lm);
    expect(text).toBe('Let me look.\n<tool_call>\n{"name":"find","input":{"id":"A-1"}}\n</tool_call>');
    expect(chunks.slice(0, 2)).toEqual(["Le", "t me look."]);
    expect(chunks.join("")).toBe(text);
  });

  it("tool calls are written as <tool_call> blocks and read back as calls", async () => {
    const find = tool("find", { description: "Finds an order.", input: { id: z.string() }, effects: "reads" }, ({ id }) => `${id}: shipped`);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [find] });
    const lm = scripted([{ toolCalls: [{ name: "find", input: { id: "A-1" } }] }, "A-1 shipped."], { nativeTools: false });
    expect(await desk({ message: "Where is A-1?" }, { lm })).toBe("A-1 shipped.");
    expect(lm.requests[0]!.tools).toEqual([]); // offered as text, in the system message
    expect(lm.requests[0]!.messages[0]!.content).toContain("<tool_call>");
    expect(lm.requests[1]!.messages.at(-1)!.content).toContain('<tool_result name="find"');
    expect(lm.requests[1]!.messages.at(-1)!.content).toContain("A-1: shipped");
  });
});

describe("scripted: lm.requests", () => {
  it("holds each request as it was sent: a later step of the same call does not show in an earlier one", async () => {
    const find = tool("find", { description: "Finds an order.", input: { id: z.string() }, effects: "reads" }, ({ id }) => `${id}: shipped`);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [find] });
    const lm = scripted([{ toolCalls: [{ name: "find", input: { id: "A-1" } }] }, { toolCalls: [{ name: "find", input: { id: "A-2" } }] }, "Both shipped."]);
    await desk({ message: "Where are A-1 and A-2?" }, { lm });
    expect(lm.requests.map((r) => r.messages.length)).toEqual([2, 4, 6]);
    expect(lm.requests.map((r) => r.messages.map((m) => m.role))).toEqual([
      ["system", "user"],
      ["system", "user", "assistant", "tool"],
      ["system", "user", "assistant", "tool", "assistant", "tool"],
    ]);
  });
});

describe("scripted: a stopped call", () => {
  it("an aborted signal refuses before anything is sent: no request kept, no reply used", async () => {
    const lm = scripted(["one"]);
    const stop = new AbortController();
    stop.abort(new Error("stopped"));
    await expect(lm.generate(ask, { signal: stop.signal })).rejects.toThrow("stopped");
    expect(lm.requests).toHaveLength(0);
    expect(lm.remaining).toBe(1);
  });

  it("a signal aborted while a reply streams stops the stream, and the call rejects with its reason, as a provider's does", async () => {
    const lm = scripted(["one two three four"]);
    const stop = new AbortController();
    const chunks: string[] = [];
    const call = lm.generate(ask, {
      signal: stop.signal,
      onText: (d) => {
        chunks.push(d);
        if (chunks.length === 2) stop.abort(new Error("stopped"));
      },
    });
    await expect(call).rejects.toThrow("stopped");
    expect(chunks).toEqual(["one ", "two "]);
    expect(lm.requests).toHaveLength(1); // it was sent (and paid for)
  });
});

describe("scripted: running out of replies", () => {
  it("fails with lm-script-ended, saying how often it was asked and how many replies it has", async () => {
    const lm = scripted(["one"]);
    await lm.generate(ask);
    const e = await lm.generate(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("lm-script-ended");
    expect((e as FunctaiError).message).toMatch(/script ended.*reply 2.*has 1/);
  });

  it("remaining counts down to 0 and stays there once the script ended", async () => {
    const lm = scripted(["one"]);
    expect(lm.remaining).toBe(1);
    await lm.generate(ask);
    expect(lm.remaining).toBe(0);
    await expect(lm.generate(ask)).rejects.toMatchObject({ code: "lm-script-ended" });
    await expect(lm.generate(ask)).rejects.toMatchObject({ code: "lm-script-ended" });
    expect(lm.remaining).toBe(0);
  });

  it("a call that asks more often than scripted fails with that code", async () => {
    const f = ai("f", { description: "d", input: { x: z.string() }, output: z.number() });
    // the reply cannot be read as a number: the call asks again, and the script has no second reply
    await expect(f({ x: "a" }, { lm: scripted(["not a number"]) })).rejects.toMatchObject({ code: "lm-script-ended" });
  });
});
