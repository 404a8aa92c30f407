import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, OutputError, StepLimit, tool, type LanguageModel, type LMRequest, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast, toolResults } from "./fixtures.js";

const codeOf = (e: unknown) => (e instanceof FunctaiError ? e.code : String(e));

/** Every tool call the model made is answered, by id, in the next request: no orphans. */
function expectNoOrphans(requests: readonly LMRequest[]) {
  for (const request of requests) {
    const answered = request.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
    const asked = request.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(answered).toEqual(asked);
  }
}

describe("wrong inputs are refused before any model call", () => {
  const two = ai("two", { description: "d", input: { a: z.string(), b: z.number() } });
  const one = ai("one", { description: "d", input: { q: z.string() } });

  it("plain, predict and stream calls", async () => {
    const lm = scripted(["never"]);
    for (const attempt of [
      () => one(42 as never, { lm }),
      () => one.predict({ q: 1 } as never, { lm }),
      () => two({ a: "x" } as never, { lm }),
      () => two("x" as never, { lm }),
    ]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(codeOf(err)).toBe("input-invalid");
      expect((err as Error).message).toContain("Nothing was sent to the model");
    }
    // a stream refuses at once, before a turn exists
    expect(() => one.stream(7 as never, { lm })).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(lm.requests.length).toBe(0);
  });
});

describe("the model's bad tool calls are answered, and the loop goes on", () => {
  it("an unknown tool name: the model is told which tools there are", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.findOrder] });
    const lm = scripted([{ toolCalls: [{ name: "launch_rocket", input: {} }] }, echoLast]);
    expect(await desk("go", { lm })).toBe('saw: Error: there is no tool named "launch_rocket". The tools are: find_order.');
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", isError: true, name: "launch_rocket" });
  });

  it("malformed tool-call JSON (inputError): the tool does not run, the model is told", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.findOrder] });
    const base = scripted([{ toolCalls: [{ name: "find_order", input: '{"order_id": "A-' }] }, echoLast]);
    // a provider marks arguments it could not parse with inputError
    const lm: LanguageModel = {
      ...base,
      generate: async (request, options) => {
        const r = await base.generate(request, options);
        return { ...r, toolCalls: r.toolCalls.map((c) => (typeof c.input === "string" ? { ...c, inputError: "Unexpected end of JSON input" } : c)) };
      },
    };
    expect(await desk("go", { lm })).toBe("saw: Error: the input for find_order could not be read (Unexpected end of JSON input). Send valid JSON.");
    expect(t.LOOKUPS).toEqual([]);
  });

  it("a tool input failing its schema: the tool does not run, the model is told, and may retry", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.refund] });
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: "lots" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 3 } }] },
      "done",
    ]);
    expect(await desk("go", { lm, approve: null })).toBe("done");
    const [[name, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(name).toBe("refund");
    expect(content).toMatch(/^Error: invalid input for refund: amount: .*The tool did not run\.$/);
    expect(t.REFUNDS).toEqual([["A-1", 3]]);
  });

  it("unknown, invalid, refused, blocked, failed and fine calls in one reply: each gets its result, in order", async () => {
    const t = deskTools();
    const broken = tool("broken", { description: "fails", input: {}, effects: "reads" }, () => { throw new Error("disk full"); });
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.findOrder, t.refund, t.note, broken] });
    const guard: Plugin = { name: "guard", version: "1", hooks: { toolCall: (c) => (c.name === "note" ? { block: "no notes" } : undefined) } };
    const lm = scripted([
      { toolCalls: [
        { name: "nope", input: {} },
        { name: "find_order", input: { order_id: 5 } },
        { name: "refund", input: { order_id: "A", amount: 1 } },
        { name: "note", input: { text: "x" } },
        { name: "broken", input: {} },
        { name: "find_order", input: { order_id: "A" } },
      ] },
      "done",
    ]);
    expect(await desk("go", { lm, plugins: [guard], approve: () => false })).toBe("done");
    expectNoOrphans(lm.requests);
    const results = toolResults(lm.requests[1]);
    expect(results.map(([n]) => n)).toEqual(["nope", "find_order", "refund", "note", "broken", "find_order"]);
    expect(results[2]![1]).toBe("The person did not allow this call.");
    expect(results[3]![1]).toBe("The call was blocked (guard). Reason: no notes");
    expect(results[4]![1]).toBe("Error: disk full");
    expect(t.LOOKUPS).toEqual(["A"]);
  });
});

describe("replies that cannot be read", () => {
  const one = ai("one", { description: "d", input: { q: z.string() } });

  it("an empty reply is asked again once", async () => {
    const lm = scripted(["", "  here  "]);
    expect(await one("x", { lm })).toBe("here");
    expect(lm.requests).toHaveLength(2);
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("Your reply could not be read (the reply is empty)") });
  });

  it("two empty replies: output-invalid", async () => {
    const lm = scripted(["", " ", "never"]);
    const err = await one("x", { lm }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutputError);
    expect(codeOf(err)).toBe("output-invalid");
    expect(lm.requests).toHaveLength(2);
  });

  it("an unreadable typed output is asked again once, then OutputError", async () => {
    const count = ai("count", { description: "d", input: { q: z.string() }, output: z.number() });
    const ok = scripted(["about forty", "<result>\n42\n</result>"]);
    expect(await count("x", { lm: ok })).toBe(42);
    expect(ok.requests).toHaveLength(2);
    const bad = scripted(["about forty", "<result>\nforty-two\n</result>", "never"]);
    const err = await count("x", { lm: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutputError);
    expect((err as OutputError).reply).toBe("<result>\nforty-two\n</result>");
    expect(bad.requests).toHaveLength(2);
  });
});

describe("typed outputs", () => {
  it("an object, as JSON in <result>", async () => {
    const order = ai("order", { description: "d", input: { q: z.string() }, output: z.object({ id: z.string(), total: z.number() }) });
    const lm = scripted(['<result>\n{"id": "A-1", "total": 39.5}\n</result>']);
    expect(await order("x", { lm })).toEqual({ id: "A-1", total: 39.5 });
    expect(lm.requests[0]!.messages[0]!.content).toContain('"required":["id","total"]');
  });

  it("an object fenced as ```json inside the block", async () => {
    const order = ai("order", { description: "d", input: { q: z.string() }, output: z.object({ id: z.string() }) });
    expect(await order("x", { lm: scripted(['<result>\n```json\n{"id": "A-1"}\n```\n</result>']) })).toEqual({ id: "A-1" });
  });

  it("a number", async () => {
    const n = ai("n", { description: "d", input: { q: z.string() }, output: z.number() });
    expect(await n("x", { lm: scripted(["<result>\n-3.25\n</result>"]) })).toBe(-3.25);
  });

  it("an enum, as a bare word (or quoted)", async () => {
    const mood = ai("mood", { description: "d", input: { q: z.string() }, output: z.enum(["happy", "sad"]) });
    expect(await mood("x", { lm: scripted(["<result>\nsad\n</result>"]) })).toBe("sad");
    expect(await mood("x", { lm: scripted(['<result>\n"happy"\n</result>']) })).toBe("happy");
    await expect(mood("x", { lm: scripted(["<result>\nangry\n</result>", "<result>\nangry\n</result>"]) })).rejects.toBeInstanceOf(OutputError);
  });
});

describe("toolErrors", () => {
  const flaky = () => {
    let calls = 0;
    return tool("flaky", { description: "d", input: { n: z.number() }, effects: "reads" }, ({ n }) => {
      calls += 1;
      if (n < 0) throw new Error(`negative: ${n}`);
      return `ok ${n} (${calls} calls)`;
    });
  };

  it('"report" (default): the model sees `Error: …` and may retry', async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [flaky()] });
    const lm = scripted([{ toolCalls: [{ name: "flaky", input: { n: -1 } }] }, { toolCalls: [{ name: "flaky", input: { n: 1 } }] }, echoLast]);
    expect(await fn("x", { lm })).toBe("saw: ok 1 (2 calls)");
    expect(toolResults(lm.requests[1])).toEqual([["flaky", "Error: negative: -1"]]);
  });

  it('"raise": the call fails with tool-failed, the cause kept, no further model call', async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [flaky()], toolErrors: "raise" });
    const lm = scripted([{ toolCalls: [{ name: "flaky", input: { n: -1 } }] }, "never"]);
    const err = await fn("x", { lm }).catch((e: unknown) => e);
    expect(codeOf(err)).toBe("tool-failed");
    expect(((err as Error).cause as Error).message).toBe("negative: -1");
    expect(lm.requests).toHaveLength(1);
  });
});

describe("parallel tool calls", () => {
  it("all run and all get results in the order the model asked, however long each took", async () => {
    const ran: string[] = [];
    const wait = tool("wait", { description: "d", input: { ms: z.number(), tag: z.string() }, effects: "reads" }, async ({ ms, tag }) => {
      await new Promise((r) => setTimeout(r, ms));
      ran.push(tag);
      return tag;
    });
    const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [wait] });
    const lm = scripted([
      { toolCalls: [{ name: "wait", input: { ms: 30, tag: "slow" } }, { name: "wait", input: { ms: 1, tag: "fast" } }, { name: "wait", input: { ms: 10, tag: "mid" } }] },
      "done",
    ]);
    expect(await fn("x", { lm })).toBe("done");
    expect(ran).toEqual(["fast", "mid", "slow"]); // they ran at once
    expect(toolResults(lm.requests[1])).toEqual([["wait", "slow"], ["wait", "fast"], ["wait", "mid"]]);
    expectNoOrphans(lm.requests);
  });
});

describe("text tool mode (no native tools)", () => {
  it("offers tools as text, parses <tool_call> blocks, sends <tool_result> blocks; same answers", async () => {
    const run = async (nativeTools: boolean) => {
      const t = deskTools();
      const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [t.findOrder] });
      const lm = scripted([
        { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "find_order", input: { order_id: "B-2" } }] },
        (req) => `<result>\n${JSON.stringify(req.messages).match(/kettle/g)?.length ?? 0} results seen\n</result>`,
      ], { nativeTools });
      return { answer: await desk("go", { lm }), lm, t };
    };
    const native = await run(true);
    const text = await run(false);
    expect(text.t.LOOKUPS).toEqual(["A-1", "B-2"]);
    expect(native.t.LOOKUPS).toEqual(["A-1", "B-2"]);
    const [first, second] = text.lm.requests;
    expect(first!.tools).toEqual([]);
    expect(first!.messages[0]!.content).toContain("Tools:\n");
    expect(first!.messages[0]!.content).toContain("- find_order: The order's status.");
    expect(first!.messages[0]!.content.startsWith(native.lm.requests[0]!.messages[0]!.content)).toBe(true);
    expect(second!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(second!.messages[2]!.content).toBe(
      '<tool_call>\n{"name":"find_order","input":{"order_id":"A-1"}}\n</tool_call>\n<tool_call>\n{"name":"find_order","input":{"order_id":"B-2"}}\n</tool_call>',
    );
    const results = second!.messages[3]!.content;
    expect(results).toBe(
      `<tool_result name="find_order" id="call_1">\n${JSON.stringify({ order_id: "A-1", item: "kettle", paid: 39 })}\n</tool_result>\n` +
        `<tool_result name="find_order" id="call_2">\n${JSON.stringify({ order_id: "B-2", item: "kettle", paid: 39 })}\n</tool_result>`,
    );
    expect(native.answer).toBe("2 results seen");
    expect(text.answer).toBe("2 results seen");
  });

  it("a <tool_call> block that is not JSON is answered with an error; the model may retry", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [t.findOrder] });
    const lm = scripted(['<tool_call>\n{"name": "find_order", "input": {"order_id": \n</tool_call>', echoLast], { nativeTools: false });
    const reply = await desk("go", { lm });
    expect(reply).toMatch(/^saw: <tool_result name="find_order" id="call_1">\nError: the input for find_order could not be read \(not valid JSON: .*\)\. Send valid JSON\.\n<\/tool_result>$/);
    expect(t.LOOKUPS).toEqual([]);
  });
});

describe("maxSteps", () => {
  it("StepLimit carries the number of steps", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.findOrder], maxSteps: 2 });
    const loop = { toolCalls: [{ name: "find_order", input: { order_id: "A" } }] };
    const err = await desk("go", { lm: scripted([loop, loop, loop]) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepLimit);
    expect((err as StepLimit).steps).toBe(2);
  });
});

describe("text tool mode with approvals", () => {
  it("a refusal and an approved run come back as <tool_result> blocks, after a wait on a stream", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [t.refund, t.note] });
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 2 } }, { name: "note", input: { text: "n" } }] },
      echoLast,
    ], { nativeTools: false });
    const s = desk.stream("go", { lm, approve: "changes" });
    for await (const e of s) {
      if (e.type === "approval" && e.approval.name === "refund") void s.deny("no", { id: e.approval.id });
      if (e.type === "approval" && e.approval.name === "note") void s.approve({ id: e.approval.id });
    }
    expect(await s).toBe(
      'saw: <tool_result name="refund" id="call_1">\nThe person did not allow this call. Reason: no\n</tool_result>\n' +
        '<tool_result name="note" id="call_2">\nnoted\n</tool_result>',
    );
    expect(lm.requests).toHaveLength(2);
    expect(t.NOTES).toEqual(["n"]);
    expect(t.REFUNDS).toEqual([]);
  });
});
