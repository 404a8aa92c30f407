/**
 * Hunt 31: what a caller sees when its delegated program's turn waits for a
 * person. The caller's send (or resume, or stream) rejected with a
 * FunctaiError coded `turn-waiting` that was no `Waiting`: code following the
 * README (`if (!(e instanceof Waiting)) throw e;`) rethrew it, and nothing
 * but its text said what a person must answer, or where. It is a `Waiting`
 * now: its `turn` is the caller's (interrupted: resume it once the delegated
 * turn is answered), its `approvals` the delegated turn's, and `delegated`
 * names the conversation and turn they wait in.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, LM_SPEC, memoryStore, tool, Waiting, type LanguageModel, type LMRequest } from "../../src/index.js";

/** The text of a request's last user message, unwrapped from its tag block. */
const asked = (request: LMRequest): string => {
  const content = [...request.messages].reverse().find((m) => m.role === "user")!.content;
  return /<\w+>\n([\s\S]*?)\n<\/\w+>/.exec(content)?.[1] ?? content;
};

/** Each function calls its tool once for what it was asked (`tools[name]`), then answers with what the tool said. */
function model(tools: Record<string, string>): LanguageModel & { seen: string[] } {
  const seen: string[] = [];
  return {
    specificationVersion: LM_SPEC,
    provider: "scripted",
    model: "hunt31",
    nativeTools: true,
    seen,
    async generate(request) {
      const fn = /^Function: (\S+)/.exec(request.messages[0]!.content)![1]!;
      const usage = { inputTokens: 1, outputTokens: 1 };
      const last = request.messages.at(-1)!;
      seen.push(`${fn}|${request.messages.length}|${asked(request)}`);
      if (last.role === "tool") {
        const results = request.messages.filter((m) => m.role === "tool").map((m) => m.content);
        return { text: `${fn}: ${results.join(" / ")}`, toolCalls: [], finishReason: "stop", usage };
      }
      const what = asked(request);
      const calls = what
        .split(" and ")
        .map((one, i) => ({ id: `c${i}`, name: tools[fn]!, input: tools[fn] === "charge" ? { order: one } : { request: one } }));
      return { text: "", toolCalls: calls, finishReason: "tool_calls", usage };
    },
  };
}

function world() {
  const charges: string[] = [];
  const charge = tool("charge", { description: "Charge.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
    charges.push(order);
    return `charged ${order}`;
  });
  const payments = ai("payments", { description: "Payments.", input: { request: z.string() }, tools: [charge] });
  const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [charge] });
  const nested = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [delegate(payments)] });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
  const deskNested = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(nested)] });
  return { charges, billing, payments, desk, deskNested };
}

const caught = (p: PromiseLike<unknown>): PromiseLike<unknown> =>
  p.then(
    (v) => ({ resolved: v }),
    (e: unknown) => e,
  );

describe("a caller whose delegated turn waits for a person", () => {
  it("its send rejects with a Waiting: the caller's turn (interrupted), the delegated approvals, where they wait; answered there, resuming that turn goes on, paying and charging once", async () => {
    const { charges, billing, desk } = world();
    const store = memoryStore();
    const lm = model({ desk: "billing", billing: "charge" });
    const chat = desk.conversation("sam", { store, lm, approve: ["charge"] });
    const e = await caught(chat.send("A-1"));
    expect(e).toBeInstanceOf(Waiting);
    const w = e as Waiting<string>;
    expect(w.code).toBe("turn-waiting");
    expect(w.message).toMatch(/conversation sam\.billing needs a person first .*billing\/charge/);
    expect(w.stack).toContain(w.message); // a log shows what waits, not "waits for a person's answer ()"
    expect(w.stack).not.toContain("answer ()");
    const [callerTurn] = await chat.turns();
    expect(w.turn.id).toBe(callerTurn!.id); // the caller's turn, not the delegated one
    expect(w.turn.state).toBe("interrupted");
    expect(w.turn.waiting).toEqual([]);
    const [delegated] = await billing.conversation("sam.billing", { store, lm }).turns();
    expect(w.delegated).toEqual({ conversation: "sam.billing", turn: delegated!.id });
    expect(w.approvals).toEqual(delegated!.waiting); // the same approvals, ids and all
    expect(w.approvals.map((a) => [a.name, a.path, a.input])).toEqual([["charge", "billing/charge", { order: "A-1" }]]);
    expect(charges).toEqual([]);

    // resumed before anyone answers: the same Waiting again, nothing paid or run
    const paidBefore = lm.seen.length;
    const early = await caught(w.turn.resume());
    expect(early).toBeInstanceOf(Waiting);
    expect((early as Waiting).turn.id).toBe(w.turn.id);
    expect((early as Waiting).approvals.map((a) => a.id)).toEqual(w.approvals.map((a) => a.id));
    expect(lm.seen.length).toBe(paidBefore);

    // a person answers where they wait; the caller's turn then goes on when resumed
    const there = await billing.conversation(w.delegated!.conversation, { store, lm }).turn(w.delegated!.turn);
    expect(await there.approve({ by: "maria", id: w.approvals[0]!.id })).toBe("billing: charged A-1");
    expect(await w.turn.resume()).toBe("desk: billing: charged A-1");
    expect(charges).toEqual(["A-1"]);
    expect(lm.seen.filter((s, i) => lm.seen.indexOf(s) !== i)).toEqual([]); // no request sent twice
    expect(lm.seen.filter((s) => s.startsWith("desk|"))).toHaveLength(2);
    expect(lm.seen.filter((s) => s.startsWith("billing|"))).toHaveLength(2);
  });

  it("a stream of the caller's turn rejects with the same kind of Waiting", async () => {
    const { billing, desk } = world();
    const store = memoryStore();
    const lm = model({ desk: "billing", billing: "charge" });
    const chat = desk.conversation("sam", { store, lm, approve: ["charge"] });
    const s = chat.stream("A-1");
    const types: string[] = [];
    for await (const event of s) types.push(event.type);
    const e = await caught(s);
    expect(e).toBeInstanceOf(Waiting);
    const [delegated] = await billing.conversation("sam.billing", { store, lm }).turns();
    expect((e as Waiting).turn.id).toBe(s.turn);
    expect((e as Waiting).approvals.map((a) => a.id)).toEqual(delegated!.waiting.map((a) => a.id));
    expect((e as Waiting).delegated).toEqual({ conversation: "sam.billing", turn: delegated!.id });
  });

  it("two calls of the delegate in one step (the second refused: its conversation waits): the Waiting lists what waits there", async () => {
    const { charges, billing, desk } = world();
    const store = memoryStore();
    const lm = model({ desk: "billing", billing: "charge" });
    const chat = desk.conversation("sam", { store, lm, approve: ["charge"] });
    const e = await caught(chat.send("A-1 and A-2"));
    expect(e).toBeInstanceOf(Waiting);
    const billings = billing.conversation("sam.billing", { store, lm });
    const waiting = (await billings.turns()).filter((t) => t.state === "waiting");
    expect(waiting).toHaveLength(1);
    expect((e as Waiting).approvals.map((a) => a.id)).toEqual(waiting[0]!.waiting.map((a) => a.id));
    expect((e as Waiting).delegated).toEqual({ conversation: "sam.billing", turn: waiting[0]!.id });
    expect(charges).toEqual([]);
  });

  it("two levels down: the approvals and the conversation named are the innermost turn's, where a person answers them", async () => {
    const { charges, payments, deskNested } = world();
    const store = memoryStore();
    const lm = model({ desk: "billing", billing: "payments", payments: "charge" });
    const chat = deskNested.conversation("sam", { store, lm, approve: ["charge"] });
    const e = await caught(chat.send("A-1"));
    expect(e).toBeInstanceOf(Waiting);
    const w = e as Waiting<string>;
    const [inner] = await payments.conversation("sam.billing.payments", { store, lm }).turns();
    expect(inner!.state).toBe("waiting");
    expect(w.delegated).toEqual({ conversation: "sam.billing.payments", turn: inner!.id });
    expect(w.approvals.map((a) => [a.id, a.path])).toEqual(inner!.waiting.map((a) => [a.id, "payments/charge"]));
    expect((await chat.turns())[0]!.id).toBe(w.turn.id);
    expect(await inner!.approve({ by: "maria" })).toBe("payments: charged A-1");
    // the middle turn is resumed as the caller's call of it goes on: one resume of the caller is enough
    expect(await w.turn.resume()).toBe("desk: billing: payments: charged A-1");
    expect(charges).toEqual(["A-1"]);
  });
});
