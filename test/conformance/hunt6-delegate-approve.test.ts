/**
 * A caller's `approve` and the tools of a program it delegates to.
 *
 * The spec (Julia page, "approve"): "approve is a setting, so it works
 * wherever settings do", and a rule is "a list of tool names and approval
 * paths … names, not ids, so a host writes rules before any call exists";
 * README ("Tools that change things"): a function is "asked at once about
 * each changing call". `delegate` (spec: "delegate makes another program a
 * tool that remembers per branch") is one way a tool call reaches such a
 * changing call. In a plain call it does: the rule and the function reach
 * the refund inside the delegated function. In a conversation they did not
 * (the delegated turn was sent without them); now they do, and a rule is
 * kept with the delegated turn's record, its entries matching as the caller
 * or the delegated program writes the path.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, memoryStore, type Approval, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { delegatedRefund, deskTools, echoLast, toolResults } from "../engine/fixtures.js";

/** desk → delegate(billing) → refund (changes). */
const world = () => delegatedRefund();

const codeOf = (e: unknown): unknown => (e as { code?: unknown } | null)?.code;

describe("a plain call: the caller's approve reaches the delegated function's tools", () => {
  it('a rule naming "refund" refuses it before it runs (approval-required, path desk/billing/refund)', async () => {
    const { t, desk, lm } = world();
    const e = await desk("Refund A-1042.", { lm, approve: ["refund"] }).catch((x: unknown) => x);
    expect(codeOf(e)).toBe("approval-required");
    expect((e as Error).message).toMatch(/^desk\/billing\/refund: /);
    expect(t.REFUNDS).toEqual([]);
  });

  it("a function is asked about the refund, and its refusal is what billing's model sees", async () => {
    const { t, desk, lm } = world();
    const asked: string[] = [];
    const manager = (a: Approval) => (asked.push(a.path), a.name === "billing" ? true : "Refunds need a manager.");
    expect(await desk("Refund A-1042.", { lm, approve: manager })).toBe(
      "saw: saw: The person did not allow this call. Reason: Refunds need a manager.",
    );
    expect(asked).toEqual(["desk/billing", "desk/billing/refund"]);
    expect(t.REFUNDS).toEqual([]);
  });
});

describe("a conversation: the same settings on the same tools", () => {
  it('under "changes" the delegated call itself waits for a person, and nothing ran', async () => {
    const { t, desk, lm } = world();
    const e = await desk.conversation("sam", { store: memoryStore(), approve: "changes", lm }).send("Refund A-1042.").catch((x: unknown) => x);
    expect(codeOf(e)).toBe("turn-waiting");
    expect((e as { approvals: Approval[] }).approvals.map((a) => [a.path, a.effects])).toEqual([["desk/billing", "changes"]]);
    expect(t.REFUNDS).toEqual([]);
  });

  // Was a bug: src/functions/delegate.ts dropped the caller's `approve` from the
  // settings the delegated conversation is opened with (`key !== "approve"`), so a
  // rule naming the inner tool never asked: the delegate call "billing" is not named
  // by it, and inside the delegated turn nobody was asked; the refund ran. Now the
  // delegated turn is sent with the caller's rule (kept with its turn record, as a
  // conversation keeps its own): the refund waits for a person there, and the caller
  // stops (interrupted) until that turn is answered, as for a rule of billing's own.
  it('a rule naming "refund" asks before the refund inside the delegated turn runs', async () => {
    const { t, desk, lm } = world();
    const e = await desk.conversation("sam", { store: memoryStore(), approve: ["refund"], lm }).send("Refund A-1042.").catch((x: unknown) => x);
    expect(t.REFUNDS).toEqual([]); // (it ran: [["A-1042", 39]], and the send answered "saw: saw: refunded 39 for A-1042")
    expect(codeOf(e)).toBe("turn-waiting");
  });

  // Was a bug, the same cause: an approve function was asked about the call to
  // billing (it says yes to that), never about the refund billing makes, so a
  // manager's "no" to refunds was bypassed by going through a delegate. README: a
  // function is "asked at once about each changing call". Now the function goes on
  // to the delegated turn run in this process: it is asked about the refund, and its
  // no is what billing's model sees, as in a plain call.
  it("an approve function is asked about the refund inside the delegated turn, and its no stands", async () => {
    const { t, desk, lm } = world();
    const asked: string[] = [];
    const manager = (a: Approval) => (asked.push(a.path), a.name === "billing" ? true : "Refunds need a manager.");
    await desk.conversation("sam", { store: memoryStore(), approve: manager, lm }).send("Refund A-1042.").catch(() => undefined);
    expect(t.REFUNDS).toEqual([]); // (it ran: [["A-1042", 39]])
    expect(asked.some((p) => p.endsWith("billing/refund"))).toBe(true); // (asked: ["desk/billing"] only)
  });
});

/** What a conversation's turn records keep as their rule. */
const keptRules = async (store: ReturnType<typeof memoryStore>, id: string): Promise<unknown[]> =>
  (await store.read(id)).filter((r) => r.kind === "turn").map((r) => (r as { approve?: unknown }).approve);

describe("a conversation: the caller's rule in the delegated turn, written as either side sees the path", () => {
  // the caller sees the refund at desk/billing/refund; the delegated turn at billing/refund
  it.each([["billing/refund"], ["desk/billing/refund"]])("a rule [%j] asks there; answered in billing's conversation, the caller goes on", async (entry) => {
    const { t, billing, desk, lm } = world();
    const store = memoryStore();
    const e = await desk.conversation("sam", { store, approve: [entry], lm }).send("Refund A-1042.").catch((x: unknown) => x);
    expect(codeOf(e)).toBe("turn-waiting");
    expect(t.REFUNDS).toEqual([]);
    // a handle that gives no rule: the one kept with the delegated turn holds there
    const [delegated] = await billing.conversation("sam.billing", { store, lm }).turns();
    expect(delegated!.state).toBe("waiting");
    expect(delegated!.waiting.map((a) => a.path)).toEqual(["billing/refund"]);
    expect((await keptRules(store, "sam.billing"))[0]).toEqual(expect.arrayContaining([entry, "billing/refund"]));
    const [caller] = await desk.conversation("sam", { store, lm }).turns();
    expect(caller!.state).toBe("interrupted");
    expect(await delegated!.approve({ by: "maria" })).toBe("saw: refunded 39 for A-1042");
    expect(await caller!.resume()).toBe("saw: saw: refunded 39 for A-1042");
    expect(t.REFUNDS).toEqual([["A-1042", 39]]);
  });

  it('a delegate named "accounts": the caller\'s path desk/accounts/refund asks, as in a plain call', async () => {
    const t = deskTools();
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [t.refund] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing, { name: "accounts" })] });
    const lm = () => scripted([{ toolCalls: [{ name: "accounts", input: { request: "refund A-1042" } }] }, { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] }, echoLast, echoLast]);
    for (const entry of ["desk/accounts/refund", "accounts/refund"]) {
      const plain = await desk("Refund A-1042.", { lm: lm(), approve: [entry] }).catch((x: unknown) => x);
      expect((plain as Error).message).toMatch(/^desk\/accounts\/refund: /);
      const store = memoryStore();
      const e = await desk.conversation("sam", { store, approve: [entry], lm: lm() }).send("Refund A-1042.").catch((x: unknown) => x);
      expect(codeOf(e)).toBe("turn-waiting");
      const [delegated] = await billing.conversation("sam.accounts", { store }).turns();
      expect(delegated!.waiting.map((a) => a.path)).toEqual(["billing/refund"]);
    }
    expect(t.REFUNDS).toEqual([]);
  });

  it('a rule naming only the delegate (["billing"]) asks about that call, not about the tools inside it (as in a plain call)', async () => {
    const { t, desk, lm } = world();
    const store = memoryStore();
    const e = await desk.conversation("sam", { store, approve: ["billing"], lm }).send("Refund A-1042.").catch((x: unknown) => x);
    expect((e as { approvals: Approval[] }).approvals.map((a) => a.path)).toEqual(["desk/billing"]);
    expect(await (e as { turn: { approve(o: object): Promise<unknown> } }).turn.approve({ by: "maria" })).toBe("saw: saw: refunded 39 for A-1042");
    expect(t.REFUNDS).toEqual([["A-1042", 39]]);
  });

  // Two calls of billing in one step: the first one's delegated turn waits for a person, so billing's
  // conversation refuses the second (conversation-busy). That refusal was kept as the second call's
  // result (the model saw "answer it first", for good, with a turn id that differs each run); now the
  // calling turn stops for a person as it does for the first, and the second call is sent on resume.
  it("two calls of billing in one step, the first waiting: the caller stops, and each refund is asked in its turn", async () => {
    const t = deskTools();
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [t.refund] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    // billing refunds the order its request names (the two delegated turns may ask in either order)
    const refundAsked = (request: LMRequest) => {
      const order = /A-\d/.exec([...request.messages].reverse().find((m) => m.role === "user")!.content)![0];
      return { toolCalls: [{ name: "refund", input: { order_id: order, amount: order === "A-1" ? 39 : 12 } }] };
    };
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { request: "refund A-1" } }, { name: "billing", input: { request: "refund A-2" } }] },
      refundAsked,
      echoLast,
      refundAsked,
      echoLast,
      (request) => `desk saw: ${toolResults(request).map(([, c]) => c).join(" / ")}`,
    ]);
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, approve: ["refund"], lm });
    const billings = billing.conversation("sam.billing", { store, lm });
    expect(codeOf(await chat.send("Refund both.").catch((x: unknown) => x))).toBe("turn-waiting");
    expect((await store.read("sam")).filter((r) => r.kind === "tool")).toEqual([]); // nothing kept as the second call's result
    const [caller] = await chat.turns();
    const asked: string[] = [];
    for (let round = 1; round <= 2; round++) {
      const waiting = (await billings.turns()).filter((d) => d.state === "waiting");
      expect(waiting.map((d) => d.waiting.map((a) => a.path))).toEqual([["billing/refund"]]); // one at a time
      asked.push((waiting[0]!.waiting[0]!.input as { order_id: string }).order_id);
      await waiting[0]!.approve({ by: "maria" });
      const resumed = await caller!.resume().catch((x: unknown) => x);
      if (round === 1) expect(codeOf(resumed)).toBe("turn-waiting");
      else expect(resumed).toBe("desk saw: saw: refunded 39 for A-1 / saw: refunded 12 for A-2");
    }
    expect(asked.sort()).toEqual(["A-1", "A-2"]);
    expect(t.REFUNDS.sort()).toEqual([["A-1", 39], ["A-2", 12]]);
  });

  it('a function is kept as "function" with the delegated turn (a resume without it asks a person, as for any turn)', async () => {
    const { desk, lm } = world();
    const store = memoryStore();
    const manager = (a: Approval) => a.name === "billing" || "Refunds need a manager.";
    await desk.conversation("sam", { store, approve: manager, lm }).send("Refund A-1042.");
    expect(await keptRules(store, "sam")).toEqual(["function"]);
    expect(await keptRules(store, "sam.billing")).toEqual(["function"]);
  });
});
