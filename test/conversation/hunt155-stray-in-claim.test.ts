/**
 * Hunt 155: a person's answer that answers nothing the turn waits for (hunt
 * 146's "stray" records: an approval no `waiting` record asks, a `given` for a
 * call never started) is damage, and a conversation holding one is read by
 * nobody until it is mended. Hunt 146 pinned that for every read of a
 * conversation. It missed one window: a resume reads the turn, then claims it
 * with a conditional append; a record appended between the two makes that
 * append lose its race, and the claim, taking what came on trust, went on
 * with it. The turn's journal was then built from records the reader had
 * skipped as damage: the stray "yes" ran the changing tool nobody was asked
 * about, the stray `given` became the result of a tool that never ran.
 *
 * Now the records a claimed turn goes on from are refused (`store-corrupt`,
 * naming the record) when the reader skipped any: nothing is paid, run or
 * kept for the turn, and once the record is taken out it is resumed as any
 * interrupted turn is.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

const CONVERSATION = "c";
const PAY_CALL = { toolCalls: [{ id: "p1", name: "pay", input: { amount: 500 } }] };

function desk() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    paid.push(amount);
    return `paid ${amount}`;
  });
  return { paid, fn: ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] }) };
}

/**
 * A turn left interrupted before its first reply was kept (the store refused
 * the reply's append): no tool record, no `waiting` record, nothing a person
 * may answer.
 */
async function interruptedTurn(fn: ReturnType<typeof desk>["fn"], inner: Store): Promise<string> {
  let fail = true;
  const store = faultyStore(inner, {
    failOn: (c) => (fail && c.records.some((r) => (r as { kind?: unknown }).kind === "reply") ? "before-write" : undefined),
  });
  const refused = await fn
    .conversation(CONVERSATION, { store, approve: "changes", lm: scripted([PAY_CALL]) })
    .send("pay 500")
    .catch((e: unknown) => e);
  fail = false;
  expect(refused).toMatchObject({ code: "store-io" });
  const [turn] = await fn.conversation(CONVERSATION, { store: inner }).turns();
  expect(turn!.state).toBe("interrupted");
  return turn!.id;
}

/** A store that appends `stray` just before the first claim of attempt 2 lands, so that the claim loses its race to it. */
function racing(inner: Store, stray: () => object): Store & { injected: () => number | null } {
  let injected: number | null = null;
  return {
    injected: () => injected,
    read: (c, after) => inner.read(c, after),
    length: (c) => inner.length!(c),
    append: async (c, records, opts) => {
      const claims = records.some((r) => (r as { kind?: unknown; attempt?: unknown }).kind === "lease" && (r as { attempt?: unknown }).attempt === 2);
      if (injected === null && claims) injected = await inner.append(c, [stray()]);
      return inner.append(c, records, opts);
    },
  };
}

/** The conversation's records without the one at `seq` (as a person mending it by hand would leave it), in a new store. */
async function mended(inner: Store, seq: number): Promise<Store> {
  const kept = (await inner.read(CONVERSATION)).filter((r) => r.seq !== seq).map(({ seq: _, ...r }) => r);
  const store = memoryStore();
  await store.append(CONVERSATION, kept as ConversationRecord[]);
  return store;
}

const at = () => new Date().toISOString();

const cases = {
  "an approval no waiting record asks (a stray yes)": (turn: string) => ({
    functai_conversation: 1, kind: "approval", at: at(), turn, site: "desk#1", invocation: 1, plugin: null, path: "desk/pay", verdict: "yes", by: "nobody", reason: null,
  }),
  "a given result for a call never started": (turn: string) => ({
    functai_conversation: 1, kind: "tool", at: at(), turn, site: "desk#1", invocation: 1, name: "pay", state: "given", output: "paid 500", by: "nobody",
  }),
};

describe("a stray answer appended while a resume claims the turn", () => {
  for (const [name, stray] of Object.entries(cases))
    it(`${name}: the resume is refused store-corrupt naming it; nothing is paid or run; mended, the turn goes on and asks`, async () => {
      const { paid, fn } = desk();
      const inner = memoryStore();
      const turnId = await interruptedTurn(fn, inner);
      const store = racing(inner, () => stray(turnId));
      const lm = scripted([PAY_CALL, "Paid."]);
      const [turn] = await fn.conversation(CONVERSATION, { store, approve: "changes", lm }).turns();
      const refused = await turn!.resume().catch((e: unknown) => e);
      const seq = store.injected();
      expect(seq).not.toBeNull(); // (the race happened: the stray record came between the read and the claim)
      expect(refused).toMatchObject({ code: "store-corrupt", message: expect.stringContaining(`record ${seq}`) });
      expect(paid).toEqual([]);
      expect(lm.requests).toHaveLength(0);
      // nothing of the turn was kept after the claim but its let-go: no reply, no tool record, no end
      const after = (await inner.read(CONVERSATION)).filter((r) => r.seq > seq!).map((r) => r.kind);
      expect(after.every((k) => k === "lease")).toBe(true);
      // every reader refuses the conversation until it is mended
      await expect(fn.conversation(CONVERSATION, { store: inner }).turns()).rejects.toMatchObject({ code: "store-corrupt" });

      const fixed = await mended(inner, seq!);
      const lm2 = scripted([PAY_CALL, "Paid."]);
      const [again] = await fn.conversation(CONVERSATION, { store: fixed, lm: lm2 }).turns();
      expect(again!.state).toBe("interrupted");
      // the reply was never kept: asked for again, and the call it asks for waits for a person (the turn's own rule)
      const waits = await again!.resume().catch((e: unknown) => e);
      expect(waits).toBeInstanceOf(Waiting);
      expect((waits as Waiting).approvals.map((a) => a.name)).toEqual(["pay"]);
      expect(paid).toEqual([]);
    });
});
