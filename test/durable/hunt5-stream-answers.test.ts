/**
 * Hunt: answers sent to a conversation's stream at the wrong time (before
 * the approval is shown, twice, a no then a yes, an unknown id, after the
 * end), an answer from another process (a real child on the file store)
 * while this stream waits, and a stop while the stream waits or while its
 * changing tool runs. Checked: one answer stands, the refund runs once at
 * most (never after a stop), the stream and the records tell the same
 * story, and no promise is left rejected unhandled.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, FunctaiError, memoryStore, tool, Waiting, type Store, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools } from "../engine/fixtures.js";
import { summary, twoWaits } from "./fixtures/hunt5-stream-desk.js";
import { hereDesk, refunds } from "./fixtures/hunt-block.js";
import { start, until } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await removeBundles();
  await new Promise((r) => setTimeout(r, 50));
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});


/** The desk (find_order reads, refund changes) on a memory store, its model calling both in one reply, under approve: "changes". */
function desk() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund] });
  const lm = scripted([
    { text: "Looking it up and refunding.", toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "refund", input: { order_id: "A-1", amount: 39 } }] },
    summary,
  ]);
  const store = memoryStore();
  return { t, fn, lm, store, chat: fn.conversation("sam", { store, lm, approve: "changes" }) };
}

const kinds = async (store: Store, id = "sam"): Promise<string[]> =>
  (await store.read(id)).map((r) => {
    const x = r as unknown as { kind: string; verdict?: string; state?: string };
    return x.verdict ?? x.state ? `${x.kind}:${x.verdict ?? x.state}` : x.kind;
  });
const codeOf = (p: PromiseLike<unknown>): Promise<unknown> => Promise.resolve(p).then(() => "ok", (e: unknown) => (e instanceof FunctaiError ? e.code : e));

describe("answers sent to a conversation's stream at the wrong time", () => {
  // A conversation stream's approve()/deny() is checked when it is called, before anything is written
  // (src/conversation/driver.ts askedNow, with the plain stream's own check, src/turn/run.ts answerable): given before
  // the turn asked anything it is refused (turn-state), never kept as a yes to approvals asked later and shown to nobody.
  it("approve() before any approval was shown is refused (turn-state), not kept as a yes to the refund asked later", async () => {
    const { t, store, chat } = desk();
    const s = chat.stream("Refund A-1");
    expect(s.pending).toEqual([]);
    const early = codeOf(s.approve({ by: "nobody saw it" }));
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    expect(await early).toBe("turn-state");
    expect(t.REFUNDS).toEqual([]);
    expect(await kinds(store)).not.toContain("approval:yes");
    expect(types.at(-1)).toBe("state");
    expect(await codeOf(s)).toBe("turn-waiting");
    // once its promise said the turn waits, saved, an answer here is refused: the Waiting's turn answers it
    // (test/conversation/hunt38-stream-told.test.ts)
    expect(await codeOf(s.deny("early too"))).toBe("turn-state");
  });

  it("a stale approve() between two waits is refused (approval-answered): the second wait is not answered by it", async () => {
    const { t, fn, lm } = twoWaits();
    const store = memoryStore();
    const s = fn.conversation("two", { store, lm, approve: "changes" }).stream("Refund A-1");
    const approvals: string[] = [];
    let stale: Promise<unknown> | undefined;
    for await (const e of s) {
      if (e.type === "approval") {
        approvals.push(e.approval.id);
        if (approvals.length === 1) await s.approve();
        else {
          expect(await stale).toBe("approval-answered");
          expect(s.pending.map((a) => a.id)).toEqual(["desk#1:2"]); // still waits: the stale yes answered nothing
          await s.deny("too much", { id: e.approval.id });
        }
      }
      if (e.type === "state" && e.state === "running" && approvals.length === 1) stale = codeOf(s.approve({ by: "stale" }));
    }
    expect(approvals).toEqual(["desk#1:1", "desk#1:2"]);
    expect(await s).toBe("results: refunded 1 for A-1 | The person did not allow this call. Reason: too much");
    expect(t.REFUNDS).toEqual([["A-1", 1]]);
    expect((await kinds(store, "two")).filter((x) => x.startsWith("approval:"))).toEqual(["approval:yes", "approval:no"]);
  });

  it("an unknown id is refused (approval-unknown); a no with a reason, then a yes: the no stands, the refund never runs; after the end: a clear code", async () => {
    const { t, lm, store, chat } = desk();
    const s = chat.stream("Refund A-1");
    const answers: unknown[] = [];
    for await (const e of s) {
      if (e.type !== "approval") continue;
      answers.push(await codeOf(s.approve({ id: "desk#1:99" })));
      const no = codeOf(s.deny("over the limit", { id: e.approval.id }));
      const yes = codeOf(s.approve({ id: e.approval.id }));
      answers.push(await no, await yes);
    }
    expect(answers).toEqual(["approval-unknown", "ok", "approval-answered"]);
    expect(await s).toBe('results: {"order_id":"A-1","item":"kettle","paid":39} | The person did not allow this call. Reason: over the limit');
    for (const late of [s.approve(), s.deny("late"), s.approve({ id: "desk#1:2" })]) expect(await codeOf(late)).toMatch(/^(turn-state|approval-answered)$/);
    expect(t.REFUNDS).toEqual([]);
    expect(t.LOOKUPS).toEqual(["A-1"]);
    expect(lm.requests).toHaveLength(2);
    const k = await kinds(store);
    expect(k.filter((x) => x.startsWith("approval:"))).toEqual(["approval:no"]);
    expect(k.filter((x) => x.startsWith("ended:"))).toEqual(["ended:done"]);
  });
});

describe("a stop while a conversation's stream waits, or while its changing tool runs", () => {
  // s.abort() while the turn waits, saved, ends it in its records as an abort while it runs does (`ended`, stopped;
  // src/conversation/driver.ts stopTurn, src/conversation/answers.ts stopWaitingTurn, one conditional append), and the
  // stream's promise rejects turn-aborted once that is written: another handle's yes is then refused (turn-state).
  it("s.abort() while the turn waits: the stream and the records agree, and no refund runs after a stop", async () => {
    const { t, fn, store, chat } = desk();
    const s = chat.stream("Refund A-1");
    const types: string[] = [];
    for await (const e of s) {
      types.push(e.type === "state" ? `state:${e.state}` : e.type);
      if (e.type === "approval") s.abort();
    }
    expect(types.at(-1)).toBe("state:stopped");
    const told = await codeOf(s);
    const [turn] = await fn.conversation("sam", { store, lm: scripted([summary]) }).turns();
    expect([told, turn!.state]).toEqual(["turn-aborted", "stopped"]);
    expect((await kinds(store)).filter((x) => x.startsWith("ended:"))).toEqual(["ended:stopped"]);
    expect(await codeOf(turn!.approve({ by: "maria" }))).toBe("turn-state");
    expect(await codeOf(s.approve())).toBe("turn-state");
    expect(t.REFUNDS).toEqual([]);
  });

  it("s.abort() of a waiting turn another handle answered first: not ended under it; the stream's promise says why", async () => {
    const { t, fn, store, chat } = desk();
    const s = chat.stream("Refund A-1");
    let other: unknown;
    for await (const e of s) {
      if (e.type !== "approval") continue;
      const [turn] = await fn.conversation("sam", { store, lm: scripted([summary]) }).turns();
      other = await turn!.approve({ by: "maria" }); // it goes on there, to its end
      s.abort();
    }
    expect(other).toMatch(/refunded 39 for A-1/);
    expect(await codeOf(s)).toBe("turn-state");
    expect((await kinds(store)).filter((x) => x.startsWith("ended:"))).toEqual(["ended:done"]);
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });

  it("an AbortSignal after the turn waits changes nothing: the stream ends on the wait, the promise is Waiting, approved later the refund runs once", async () => {
    const { t, fn, store, lm } = desk();
    const controller = new AbortController();
    const s = fn.conversation("sam", { store, lm, approve: "changes" }).stream("Refund A-1", { signal: controller.signal });
    const events: TurnEvent[] = [];
    for await (const e of s) {
      events.push(e);
      if (e.type === "approval") controller.abort("closed the tab");
    }
    expect(events.at(-1)).toMatchObject({ type: "state", state: "awaitingApproval" });
    const w = await Promise.resolve(s).catch((e: unknown) => e);
    expect(w).toBeInstanceOf(Waiting);
    expect((w as Waiting).turn.state).toBe("waiting");
    expect(await (w as Waiting).turn.approve({ by: "maria" })).toMatch(/refunded 39 for A-1/);
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(lm.requests).toHaveLength(2);
  });

  it("an AbortSignal while the changing tool runs: the tool runs once and sees its signal, the records say stopped, no request follows, resume is refused", async () => {
    let runs = 0;
    let aborted: boolean | undefined;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }, ctx) => {
      runs++;
      await gate; // deaf to its signal: its side effect happens anyway
      aborted = ctx.signal.aborted;
      return `paid ${amount}`;
    });
    const fn = ai("desk", { description: "Pay.", input: { q: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "never asked"]);
    const store = memoryStore();
    const controller = new AbortController();
    const s = fn.conversation("p", { store, lm }).stream("pay", { signal: controller.signal });
    const events: TurnEvent[] = [];
    const read = (async () => {
      for await (const e of s) events.push(e);
    })();
    await until("pay runs", () => runs === 1);
    controller.abort();
    release();
    await read;
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "state", state: "stopped" });
    const k = await kinds(store, "p");
    expect(k.filter((x) => x.startsWith("ended:"))).toEqual(["ended:stopped"]);
    expect(k).toContain("tool:done"); // it ran: kept as done, never unfinished for a person to rerun
    const [turn] = await fn.conversation("p", { store, lm: scripted(["x"]) }).turns();
    expect(turn!.state).toBe("stopped");
    expect(await codeOf(turn!.resume())).toBe("turn-state");
    expect([runs, lm.requests.length]).toEqual([1, 1]);
  });
});

describe("an answer from another process while this stream waits (file store, a real child)", () => {
  const LEASE = { renewMs: 100, ttlMs: 2_000 };
  const CALL = { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] };
  const LOSER = /^(turn-state|turn-claimed|approval-answered)$/;

  /** A turn of hunt-block.ts's desk streamed here under a rule, and a child ready to approve it once `go` exists. */
  async function setUp(dir: string, id: string, extra: Record<string, unknown> = {}) {
    const effects = join(dir, "effects.log");
    const lm = scripted([CALL, "Refunded here."]);
    const s = hereDesk(effects).conversation(id, { store: fsStore(dir), lm, approve: ["refund"], lease: LEASE }).stream({ request: "Refund A-1." });
    const go = join(dir, `go-${id}`);
    const child = await start("hunt2-turn-child.ts", { dir, conversation: id, act: "approve", effects, lease: LEASE, go, replies: ["Refunded there."], ...extra });
    await child.line("ready");
    return { effects, lm, s, go, child };
  }

  it("both say yes at one instant, 4 rounds: one answer stands, the refund runs once, the winner's outcome is the stream's or the child's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt5-"));
    const store = fsStore(dir);
    for (let i = 0; i < 4; i++) {
      const id = `both-${i}`;
      const { effects, lm, s, go, child } = await setUp(dir, id);
      try {
        const before = refunds(effects).length;
        let mine: Promise<unknown> | undefined;
        const types: string[] = [];
        for await (const e of s) {
          types.push(e.type);
          if (e.type === "approval") {
            writeFileSync(go, "");
            mine = codeOf(s.approve({ by: "here" }));
          }
        }
        const theirs = await child.line((l) => "ok" in l || "error" in l || "waiting" in l);
        const records = await store.read(id);
        expect(records.filter((r) => r.kind === "approval")).toHaveLength(1);
        expect(records.filter((r) => r.kind === "ended")).toHaveLength(1);
        expect(refunds(effects).length - before).toBe(1);
        if ((await mine) === "ok") {
          expect(await s).toBe("Refunded here.");
          expect(types.slice(-2)).toEqual(["done", "state"]);
          expect(theirs).toMatchObject({ error: expect.stringMatching(LOSER), requests: 0 });
          expect(lm.requests).toHaveLength(2);
        } else {
          expect(await mine).toMatch(LOSER);
          expect(theirs).toMatchObject({ ok: "Refunded there.", requests: 1 });
          expect(lm.requests).toHaveLength(1);
        }
      } finally {
        child.kill();
      }
    }
  }, 60_000);

  // When this stream's own answer is refused because another process answered first (approval-answered), its loop
  // ends on the local actor's wait; the promise reads the turn's records again (src/conversation/driver.ts
  // waitingOrRecorded) and settles as they say: the child's answer here, as the turn ended done there (turn-claimed
  // while it runs there), never a `Waiting` for a turn that does not wait.
  it("the child's yes stands first: this stream's later yes is refused, and its promise does not say the turn waits", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt5-"));
    const { effects, lm, s, go, child } = await setUp(dir, "theirs");
    try {
      let mine: unknown;
      for await (const e of s) {
        if (e.type !== "approval") continue;
        writeFileSync(go, "");
        await child.line("ok"); // the child approved, ran the refund and ended the turn
        mine = await codeOf(s.approve({ by: "here" }));
      }
      expect(mine).toBe("approval-answered");
      expect(refunds(effects)).toHaveLength(1);
      expect(lm.requests).toHaveLength(1);
      const told = await Promise.resolve(s).catch((e: unknown) => e);
      expect(told instanceof Waiting ? `Waiting, the turn ${told.turn.state}` : told).not.toMatch(/^Waiting, the turn (done|running)$/);
      expect(told).toBe("Refunded there."); // what its records say: it ended done, with the child's answer
    } finally {
      child.kill();
    }
  }, 30_000);
});
