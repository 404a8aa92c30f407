/**
 * Hunt 146: a person's answer (an `approval` record without `attempt`) to
 * nothing its turn waits for. The reader read it and let it answer nothing,
 * but the journal of a resumed run took a yes naming a call nobody was asked
 * about as consent for whatever call the model made there next: a changing
 * tool ran with no person asked. A second answer to one question overrode
 * the first (a person's no, then a stray yes, ran the tool). Such records are
 * refused (`skipped`; a conversation holding one is `store-corrupt`, naming
 * the record), as every other record that would be misread. The engine's own
 * approval records (an approve function's answer, a plugin's block) carry
 * their run's attempt and are not people's answers: they are read as before.
 *
 * The same of a person's answer about a tool call left in doubt (a `given`
 * result, a `rerun` without attempt) naming a call whose last record is not
 * `started`: a `given` for a call the model had not made yet was taken as
 * that call's result when it came (the model was told "paid 500" of a
 * payment never made), and one for a call done replaced what it returned.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, memoryStore, readConversation, tool, Waiting, type Store } from "../../src/index.js";
import type { WaitingRecord } from "../../src/records/types.js";
import { scripted } from "../../src/testing/index.js";

const AT = "2026-09-30T10:00:00.000Z";
type Rec = Record<string, unknown>;
const journal = (...records: Rec[]): Rec[] => records.map((r, i) => ({ functai_conversation: 1, at: AT, seq: i + 1, ...r }));
const turn: Rec = { kind: "turn", turn: "t1", parent: null, program: "v1", inputs: {} };
const lease = (attempt: number): Rec => ({ kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T10:00:30.000Z", attempt });
const asked = (invocation: number, plugin?: string): Rec => ({
  site: "desk#1", invocation, path: "desk/pay", name: "pay", effects: "changes", ...(plugin ? { plugin } : {}),
});
const waiting = (...approvals: Rec[]): Rec => ({ kind: "waiting", turn: "t1", approvals });
const answer = (invocation: number, more: Rec = {}): Rec => ({
  kind: "approval", turn: "t1", site: "desk#1", invocation, path: "desk/pay", verdict: "yes", by: "maria", reason: null, ...more,
});
const skipped = (...records: Rec[]) => readConversation(journal(...records), { now: AT }).skipped;

describe("hunt 146: a person's answer to nothing the turn waits for is refused (reader)", () => {
  it("an answer before any waiting record, to a question the last one does not ask, or to one answered since", () => {
    expect(skipped(turn, lease(1), answer(1))).toEqual([{ seq: 3, error: expect.stringMatching(/^approval record: .*asked a person nothing/) }]);
    // asked once, then asked anew by a later waiting record that does not ask it: only the last one's questions are open
    expect(skipped(turn, lease(1), waiting(asked(1)), lease(2), waiting(asked(2)), answer(1))).toEqual([
      { seq: 6, error: expect.stringMatching(/"desk#1:1", a question the last waiting record of turn "t1" does not ask/) },
    ]);
    // another plugin's question at the asked place is another question
    expect(skipped(turn, lease(1), waiting(asked(1, "vip")), answer(1)).map((s) => s.seq)).toEqual([4]);
    // a no, then a yes to the same question: the second would override the person's refusal
    expect(skipped(turn, lease(1), waiting(asked(1)), answer(1, { verdict: "no", reason: "not today" }), answer(1))).toEqual([
      { seq: 5, error: expect.stringMatching(/answers "desk#1:1" again/) },
    ]);
  });

  it("a waiting record that asks one question twice (shown as two approvals of one id, each answer the second to it)", () => {
    expect(skipped(turn, lease(1), waiting(asked(1), asked(2), asked(1, "approval")))).toEqual([
      { seq: 3, error: expect.stringMatching(/^waiting record: it asks "desk#1:1" twice/) },
    ]);
    // refused, it asks nothing: the turn is not read as waiting on it
    expect(readConversation(journal(turn, lease(1), waiting(asked(1), asked(1))), { now: AT }).turns.get("t1")?.waiting).toEqual([]);
  });

  it("guard: answers to what the last waiting record asks read, and so do the engine's own approval records (with attempt)", () => {
    expect(skipped(turn, lease(1), waiting(asked(1), asked(1, "vip")), answer(1), answer(1, { plugin: "vip" }))).toEqual([]);
    // asked again after a person answered it (a call made anew at the place): answered again
    expect(skipped(turn, lease(1), waiting(asked(1)), answer(1), lease(2), waiting(asked(1)), answer(1, { verdict: "no" }))).toEqual([]);
    // an approve function's answer and a plugin's block are written by a run, before or without any waiting record
    const fromRun = [answer(1, { by: "function", attempt: 1 }), answer(2, { plugin: "guard", verdict: "no", by: null, reason: "no", blocked: true, attempt: 1 })];
    expect(skipped(turn, lease(1), ...fromRun, waiting(asked(3)), answer(3))).toEqual([]);
  });
});

const call = (invocation: number, state: string, more: Rec = {}): Rec => ({
  kind: "tool", turn: "t1", site: "desk#1", invocation, name: "pay", path: "desk/pay", state, ...more,
});

describe("hunt 146: a person's result or rerun for no call left in doubt is refused (reader)", () => {
  it("a given or a person's rerun for a call never started, or for one done or settled already", () => {
    for (const state of ["given", "rerun"]) {
      expect(skipped(turn, lease(1), call(1, state, { output: "paid" }))).toEqual([
        { seq: 3, error: expect.stringMatching(new RegExp(`^tool record: a person's ${state} for "desk#1:1" of turn "t1", a call no record before it started`)) },
      ]);
      expect(skipped(turn, lease(1), call(1, "started"), call(1, "done", { output: "paid 5" }), call(1, state, { output: "paid 6" }))).toEqual([
        { seq: 5, error: expect.stringMatching(/a call done already/) },
      ]);
      expect(skipped(turn, lease(1), call(1, "started"), call(1, "given", { output: "paid" }), call(1, state)).map((x) => x.seq)).toEqual([5]);
    }
  });

  it("guard: a person's answer for a call that started, the engine's own rerun (its run's attempt), and a done", () => {
    expect(skipped(turn, lease(1), call(1, "started"), call(1, "given", { output: "paid" }), call(2, "started"), call(2, "rerun"))).toEqual([]);
    // the engine's rerun of a call that never ran; a started again after a person's rerun, then settled again
    expect(skipped(turn, lease(1), call(1, "rerun", { attempt: 1 }), call(1, "started"), call(1, "rerun"), call(1, "started"), call(1, "given"))).toEqual([]);
    // a tool that only reads is journaled done alone
    expect(skipped(turn, lease(1), call(1, "done", { output: "found" }))).toEqual([]);
  });
});

// --- as a user meets it -----------------------------------------------------

const paid: number[] = [];
const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
  paid.push(amount);
  return `paid ${amount}`;
});
const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const stores: [string, () => Promise<Store>][] = [
  ["the memory store", async () => memoryStore()],
  [
    "the file store",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "functai-hunt146-"));
      dirs.push(dir);
      return fsStore(dir);
    },
  ],
];

/** A turn that pays 5 and waits for a person, the model's next reply (on approval) a second, larger payment. */
async function waitingTurn(store: Store) {
  paid.length = 0;
  const lm = scripted([
    { toolCalls: [{ id: "p1", name: "pay", input: { amount: 5 } }] },
    { toolCalls: [{ id: "p2", name: "pay", input: { amount: 500 } }] },
    "paid both",
  ]);
  const chat = desk.conversation("c", { store, approve: "changes", lm });
  expect(await chat.send("pay 5").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
  const asked = (await store.read("c")).find((r) => r.kind === "waiting") as WaitingRecord;
  expect(asked.approvals.map((a) => a.invocation)).toEqual([1]);
  return { chat, lm, turnId: asked.turn, site: asked.approvals[0]!.site };
}

describe("hunt 146: a conversation holding a stray answer is refused (store-corrupt), and nothing runs", () => {
  for (const [name, open] of stores) {
    it(`${name}: a yes to the call the model makes next, never asked about, approves nothing and runs nothing`, async () => {
      const store = await open();
      const { chat, lm, turnId, site } = await waitingTurn(store);
      const at = new Date().toISOString();
      const stray = { functai_conversation: 1, kind: "approval", at, turn: turnId, site, invocation: 2, plugin: null, path: "desk/pay", verdict: "yes", by: "nobody", reason: null };
      const seq = await store.append("c", [stray]);
      const length = (await store.read("c")).length;
      await expect(chat.turns()).rejects.toMatchObject({
        code: "store-corrupt",
        message: expect.stringMatching(new RegExp(`record ${seq}\\b.*approval record`)),
      });
      const again = desk.conversation("c", { store, lm });
      await expect(again.send("hi")).rejects.toMatchObject({ code: "store-corrupt" });
      expect(paid).toEqual([]);
      expect(lm.requests).toHaveLength(1);
      expect(await store.read("c")).toHaveLength(length);
    });
  }

  for (const [name, open] of stores)
    it(`${name}: a person's result for the call the model makes next, never made, is not told as its result`, async () => {
      const store = await open();
      const { chat, lm, turnId, site } = await waitingTurn(store);
      const at = new Date().toISOString();
      const given = { functai_conversation: 1, kind: "tool", at, turn: turnId, site, invocation: 2, name: "pay", path: "desk/pay", state: "given", output: "paid 500" };
      const seq = await store.append("c", [given]);
      await expect(chat.turns()).rejects.toMatchObject({
        code: "store-corrupt",
        message: expect.stringMatching(new RegExp(`record ${seq}\\b.*a person's given for "desk#1:2"`)),
      });
      expect(paid).toEqual([]);
      expect(lm.requests).toHaveLength(1);
    });

  it("a person's no, then a yes to the same question: refused, the refused call never runs", async () => {
    const store = memoryStore();
    const { chat, lm, turnId, site } = await waitingTurn(store);
    const at = new Date().toISOString();
    const base = { functai_conversation: 1, kind: "approval", at, turn: turnId, site, invocation: 1, plugin: null, path: "desk/pay" };
    await store.append("c", [
      { ...base, verdict: "no", by: "maria", reason: "not today" },
      { ...base, verdict: "yes", by: "nobody", reason: null },
    ]);
    const seq = (await store.read("c")).length;
    await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(new RegExp(`record ${seq}\\b`)) });
    expect(paid).toEqual([]);
    expect(lm.requests).toHaveLength(1);
  });
});
