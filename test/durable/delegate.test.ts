/**
 * delegate(program): a tool whose program answers in a conversation of its
 * own, remembered per branch, and sent once (a resumed caller takes the
 * delegated turn's answer instead of asking again).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, LM_SPEC, memoryStore, program, tool, type LanguageModel, type LMRequest, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { LET_GO } from "../../src/conversation/host.js";

const inner = (content: string): string => /<\w+>\n([\s\S]*?)\n<\/\w+>/.exec(content)?.[1] ?? content;

/** Answers desk and billing from the request alone; `dead` makes it fail like a process that died. */
function model(state: { dead: boolean }): LanguageModel & { seen: LMRequest[] } {
  const seen: LMRequest[] = [];
  return {
    specificationVersion: LM_SPEC, provider: "scripted", model: "delegate", nativeTools: true, seen,
    async generate(request) {
      if (state.dead) throw new Error("the process died");
      seen.push(request);
      const name = /^Function: (\S+)/.exec(request.messages[0]!.content)![1];
      const last = request.messages.map((m) => m.role).lastIndexOf("user");
      const now = inner(request.messages[last]!.content);
      const step = request.messages.slice(last).filter((m) => m.role === "assistant").length;
      const usage = { inputTokens: 1, outputTokens: 1 };
      if (step === 0) {
        const call = name === "desk" ? { name: "billing", input: { request: now } } : { name: "charge", input: { note: now } };
        return { text: "", toolCalls: [{ id: "c1", ...call }], finishReason: "tool_calls", usage };
      }
      const tool = request.messages.at(-1)!.content;
      if (name === "desk") return { text: `desk: ${tool}`, toolCalls: [], finishReason: "stop", usage };
      const heard = request.messages.slice(1, last).filter((m) => m.role === "user").map((m) => inner(m.content));
      return { text: `billing heard ${JSON.stringify(heard)} now ${now}`, toolCalls: [], finishReason: "stop", usage };
    },
  };
}

function programs(state = { dead: false }, dieAfterCharge = false) {
  const charges: string[] = [];
  const charge = tool("charge", { description: "Charge the card.", input: { note: z.string() }, effects: "changes" }, ({ note }) => {
    if (state.dead) throw new Error("the process died");
    charges.push(note);
    if (dieAfterCharge) {
      state.dead = true; // the power goes out right after charging
      throw new Error("the process died");
    }
    return "charged";
  });
  const billing = ai("billing", { description: "Billing questions.", input: { request: z.string() }, tools: [charge] });
  const desk = ai("desk", { description: "Help; ask billing.", input: { message: z.string() }, tools: [delegate(billing)] });
  return { desk, billing, charges, lm: model(state) };
}

const billingRequests = (lm: { seen: LMRequest[] }) => lm.seen.filter((r) => r.messages[0]!.content.startsWith("Function: billing"));

describe("delegate", () => {
  it("answers in a conversation of its own: the second call sees the first's answer", async () => {
    const { desk, lm, charges } = programs();
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, lm });
    expect(await chat.send("remember kettle")).toBe('desk: billing heard [] now remember kettle');
    expect(await chat.send("what was it?")).toBe('desk: billing heard ["remember kettle"] now what was it?');
    const second = billingRequests(lm).at(-2)!; // the second call's first request
    expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(second.messages[2]!.content).toContain('billing heard [] now remember kettle');
    expect(charges).toEqual(["remember kettle", "what was it?"]);
    const delegated = await store.read("sam.billing");
    expect(delegated.filter((r) => r.kind === "turn")).toHaveLength(2);
  });

  it("remembers per branch: a turn on another branch sees only its branch's calls", async () => {
    const { desk, lm } = programs();
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, lm });
    await chat.send("remember kettle");
    await chat.send("also toaster");
    const [first] = await chat.turns();
    // the head moves back to the first turn: the next turn branches from it
    await store.append("sam", [{ functai_conversation: 1, kind: "head", at: new Date().toISOString(), turn: first!.id }]);
    expect(await chat.send("what was it?")).toBe('desk: billing heard ["remember kettle"] now what was it?');
    expect(billingRequests(lm)).toHaveLength(6);
  });

  it("a caller resumed after it died: the delegated turn is not sent again, nothing is paid or charged twice", async () => {
    const state = { dead: false };
    const { desk, lm, charges } = programs(state);
    const store = memoryStore();
    // the process dies right after the delegated turn ended, before the caller recorded the tool's result
    const dying: Store = {
      ...store, read: (c, a) => (state.dead ? Promise.reject(new Error("dead")) : store.read(c, a)),
      append: async (c, records, o) => {
        if (state.dead) throw new Error("dead");
        const n = await store.append(c, records, o);
        if (c === "sam.billing" && records.some((r) => (r as { kind?: string }).kind === "ended")) state.dead = true;
        return n;
      },
    };
    await expect(desk.conversation("sam", { store: dying, lm, lease: { renewMs: 1000, ttlMs: 50 } }).send("remember kettle")).rejects.toThrow();
    expect(charges).toEqual(["remember kettle"]);
    await new Promise((r) => setTimeout(r, 80));
    const again = programs();
    const [turn] = await again.desk.conversation("sam", { store, lm: again.lm }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe('desk: billing heard [] now remember kettle');
    expect(billingRequests(again.lm)).toHaveLength(0); // the delegated turn's answer was taken, not asked for again
    expect(again.charges).toEqual([]);
    expect((await store.read("sam.billing")).filter((r) => r.kind === "turn")).toHaveLength(1);
  });

  it("a delegated turn that needs a person stops the caller without ending it; answered there, the caller goes on", async () => {
    const state = { dead: false };
    const { desk, lm, charges } = programs(state, true);
    const store = memoryStore();
    const dying: Store = {
      ...store, read: (c, a) => (state.dead ? Promise.reject(new Error("dead")) : store.read(c, a)),
      append: (c, records, o) => (state.dead ? Promise.reject(new Error("dead")) : store.append(c, records, o)),
    };
    const lease = { renewMs: 1000, ttlMs: 50 };
    await expect(desk.conversation("sam", { store: dying, lm, lease }).send("remember kettle")).rejects.toThrow();
    expect(charges).toEqual(["remember kettle"]);
    await new Promise((r) => setTimeout(r, 80));
    const again = programs();
    const [caller] = await again.desk.conversation("sam", { store, lm: again.lm, lease }).turns();
    expect([caller!.state, caller!.unfinished]).toEqual(["interrupted", []]);
    const stop = await caller!.resume().catch((e: unknown) => e);
    expect(stop).toMatchObject({ code: "turn-unfinished" });
    expect((stop as Error).message).toMatch(/conversation sam\.billing .*charge \(invocation 1\) started and may have run/);
    expect((await caller!.refresh()).state).not.toBe("failed"); // still resumable
    const [delegated] = await again.billing.conversation("sam.billing", { store, lm: again.lm, lease }).turns();
    expect(delegated!.unfinished.map((u) => [u.name, u.invocation])).toEqual([["charge", 1]]);
    expect(await delegated!.resume({ results: { 1: "charged" } })).toBe('billing heard [] now remember kettle');
    await new Promise((r) => setTimeout(r, 80));
    expect(await caller!.resume()).toBe('desk: billing heard [] now remember kettle');
    expect([...charges, ...again.charges]).toEqual(["remember kettle"]); // charged once
    expect(billingRequests(again.lm)).toHaveLength(1); // only billing's answer after the charge
    expect(again.lm.seen.filter((r) => r.messages[0]!.content.startsWith("Function: desk"))).toHaveLength(1); // desk's first reply was kept
  });

  it("a caller stopped because its delegated turn waits for a person is let go at once (a run-out lease naming no process): another process need not wait out its lease", async () => {
    const charges: string[] = [];
    const charge = tool("charge", { description: "Charge the card.", input: { note: z.string() }, effects: "changes" }, ({ note }) => (charges.push(note), "charged"));
    const billing = ai("billing", { description: "Billing questions.", input: { request: z.string() }, tools: [charge], approve: "changes" });
    const desk = ai("desk", { description: "Help; ask billing.", input: { message: z.string() }, tools: [delegate(billing)] });
    const store = memoryStore();
    const lm = model({ dead: false });
    const lease = { renewMs: 20_000, ttlMs: 60_000 }; // runs out long after this test
    await expect(desk.conversation("sam", { store, lm, lease }).send("remember kettle")).rejects.toMatchObject({ code: "turn-waiting" });
    const leases = (await store.read("sam")).filter((r) => r.kind === "lease") as unknown as { holder: string; until: string }[];
    expect(leases.at(-1)!.holder.startsWith(LET_GO)).toBe(true);
    expect(Date.parse(leases.at(-1)!.until)).toBeLessThan(Date.now() + 1);
    const [caller] = await desk.conversation("sam", { store, lm }).turns();
    expect(caller!.state).toBe("interrupted");
    const [delegated] = await billing.conversation("sam.billing", { store, lm }).turns();
    expect(await delegated!.approve()).toBe("billing heard [] now remember kettle");
    expect(await caller!.resume()).toBe("desk: billing heard [] now remember kettle");
    expect(charges).toEqual(["remember kettle"]);
  });

  it("the delegated program's own settings are nearer than the caller's (its own model answers it)", async () => {
    const state = { dead: false };
    const deskLM = model(state);
    const billingLM = model(state);
    const charge = tool("charge", { description: "Charge the card.", input: { note: z.string() }, effects: "changes" }, () => "charged");
    const billing = ai("billing", { description: "Billing questions.", input: { request: z.string() }, tools: [charge], lm: billingLM });
    const desk = ai("desk", { description: "Help; ask billing.", input: { message: z.string() }, tools: [delegate(billing)] });
    expect(await desk.conversation("own", { store: memoryStore(), lm: deskLM }).send("hi")).toBe("desk: billing heard [] now hi");
    expect(billingRequests(deskLM)).toHaveLength(0);
    expect(billingRequests(billingLM)).toHaveLength(2);
  });

  it("outside a conversation it is a plain call of the program", async () => {
    const { desk, lm, charges } = programs();
    expect(await desk("hello", { lm })).toBe('desk: billing heard [] now hello');
    expect(charges).toEqual(["hello"]);
  });
});

describe("a delegate's input", () => {
  it("is parsed once, as a program used as a tool's is: a transform is not applied twice (in a conversation and in a plain call)", async () => {
    const seen: string[] = [];
    const shout = program("shout", { description: "Shouts.", input: { text: z.string().transform((s) => `${s}!`) }, effects: "reads" }, async ({ text }) => {
      seen.push(text);
      return text;
    });
    const asked = () => scripted([{ toolCalls: [{ id: "c1", name: "shout", input: { text: "hi" } }] }, "done"]);
    const desk = ai("desk", { description: "Shout it.", input: { ask: z.string() }, tools: [delegate(shout)] });
    const lm = asked();
    expect(await desk.conversation("loud", { store: memoryStore(), lm }).send("shout hi")).toBe("done");
    expect(lm.requests[1]!.messages.at(-1)!.content).toBe("hi!");
    const plain = asked();
    expect(await desk("shout hi", { lm: plain })).toBe("done");
    expect(plain.requests[1]!.messages.at(-1)!.content).toBe("hi!");
    expect(seen).toEqual(["hi!", "hi!"]);
  });
});
