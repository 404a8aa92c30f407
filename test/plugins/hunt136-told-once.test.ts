/**
 * Hunt 136: a person's answer is told to plugins once, by the run that first acts on it, whatever runs claimed the
 * turn before and died, and a run never tells again what an earlier run acted on.
 *
 * - A run that claimed the turn with the answer (an `approval`, or a `given` result, and its `lease` in one append)
 *   and stopped before it reached the answered call (here: the read after its claim fails, as a process dying
 *   there) left a `lease` after the answer: the run that then went on read the answer as acted on, and `toolResult`
 *   was never told `refused` nor `answered`. Now a claim counts only once its run wrote something past its lease.
 * - An approve function's refusal is told by the run it answered in (its `approval` record is that run's); a later
 *   run that replayed it (another process, resuming a call left in doubt after it) told `refused` again.
 */
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ConversationError, memoryStore, type LMRequest, type Plugin, type Store } from "../../src/index.js";
import { LET_GO } from "../../src/conversation/host.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { deskModel, linkedClient, makeDesk } from "../mcp/fixtures/desk.js";
import { refusableRefund } from "../fixtures/refusable-refund.js";
import { tempDirs } from "../fixtures/temp-dirs.js";
import { watcher } from "./fixtures/watcher.js";
import { hungDesk } from "../otel/fixtures/hung-desk.js";

const recordsDir = tempDirs("functai-hunt136-");

/**
 * A process over the folder `dir` that dies right after its claim: the append that answers and claims the turn is
 * written, and the read after it fails (the run never opens); the turn is let go, interrupted for the next process.
 */
function diesAfterClaim(dir: string): Store {
  const store = fsStore(dir);
  let claimed = false;
  const failOnce = <T>(read: () => Promise<T>): Promise<T> => {
    if (!claimed) return read();
    claimed = false;
    return Promise.reject(new ConversationError("store-io", "the process died here"));
  };
  return Object.assign(Object.create(store) as Store, {
    append: async (id: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }) => {
      const length = await store.append(id, records, opts);
      if (records.some((r) => (r as { kind?: string }).kind === "lease")) claimed = true;
      return length;
    },
    read: (id: string, after?: number) => failOnce(() => store.read(id, after)),
  });
}

/** A process over the folder `dir` that dies as its run stops: the lease that would say it let go of the turn is never written. */
function diesAtLetGo(dir: string): Store {
  const letGo = (r: object) => (r as { kind?: string }).kind === "lease" && String((r as { holder?: unknown }).holder).startsWith(LET_GO);
  return faultyStore(fsStore(dir), { failOn: (call) => (call.records.some(letGo) ? "before-write" : undefined), crash: true });
}

const refundHang = { name: "refund", input: { order_id: "HANG", amount: 39 } };
const told = (w: ReturnType<typeof watcher>) => w.results.map(({ name, output, refused, answered }) => ({ name, output, refused, answered }));

describe("an answer whose claiming run died before it reached the call", () => {
  it.each([1, 2])("a refusal, %i claiming runs dead: the run that goes on after is told refused, once", async (dead) => {
    const dir = recordsDir();
    const { desk, lm } = refusableRefund();
    await expect(desk.conversation("sam", { store: fsStore(dir), lm: lm(), approve: "changes" }).send("Refund me.")).rejects.toMatchObject({
      code: "turn-waiting",
    });
    const [dying] = await desk.conversation("sam", { store: diesAfterClaim(dir), lm: lm() }).turns();
    await expect(dying!.deny({ by: "maria", reason: "not today" })).rejects.toMatchObject({ code: "store-io" });
    // another process resumes it, and dies the same way
    for (let i = 1; i < dead; i++) {
      const [again] = await desk.conversation("sam", { store: diesAfterClaim(dir), lm: lm() }).turns();
      await expect(again!.resume()).rejects.toMatchObject({ code: "store-io" });
    }
    const later = watcher();
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: lm(), plugins: [later.plugin] }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe("Not refunded.");
    expect(told(later)).toEqual([
      {
        name: "refund",
        output: "The person did not allow this call. Reason: not today",
        refused: { by: "maria", reason: "not today" },
        answered: undefined,
      },
    ]);
  });

  it.each([
    ["a result given", { results: { 1: { refunded: true } } }, { kind: "given", by: null }],
    ["a rerun", { rerun: [1] }, { kind: "rerun", by: null }],
  ] as const)("%s to a call left in doubt: the run that goes on after is told answered", async (_, answer, answered) => {
    const dir = recordsDir();
    const chat = (await hungDesk()).conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang) });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const desk = await makeDesk((await linkedClient({ hang: false, record: () => undefined })).client);
    const [dying] = await desk.conversation("sam", { store: diesAfterClaim(dir), lm: deskModel(refundHang) }).turns();
    await expect(dying!.resume({ ...answer })).rejects.toMatchObject({ code: "store-io" });
    const later = watcher();
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang), plugins: [later.plugin] }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toMatch(/refunded/);
    expect(later.results.map((r) => [r.name, r.answered])).toEqual([["refund", answered]]);
  });
});

describe("an answer an earlier run acted on", () => {
  it("an approve function's refusal is told by the run it answered in, not again by the run that resumes in another process", async () => {
    const dir = recordsDir();
    // the model refunds A-1042 (the approve function refuses it), then HANG (approved: its server goes away mid-call)
    const reply = (r: LMRequest) => {
      const seen = r.messages.filter((m) => m.role === "tool").length;
      if (seen === 0) return { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 5 } }] };
      return seen === 1 ? { toolCalls: [refundHang] } : "<result>done</result>";
    };
    const lm = () => scripted(Array.from({ length: 4 }, () => reply));
    const approve = (a: { input: unknown }) => ((a.input as { order_id: string }).order_id === "HANG" ? true : "not that one");
    const first = watcher();
    const chat = (await hungDesk()).conversation("sam", { store: diesAtLetGo(dir), lm: lm(), approve, plugins: [first.plugin] });
    await expect(chat.send("Refund my orders.")).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(first.results.map((r) => r.refused)).toEqual([{ by: "function", reason: "not that one" }, undefined]);
    const later = watcher();
    const desk = await makeDesk((await linkedClient({ hang: false, record: () => undefined })).client);
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: lm(), plugins: [later.plugin] }).turns();
    expect(await turn!.resume({ results: { 2: { refunded: true } } })).toBe("done");
    expect(told(later)).toEqual([{ name: "refund", output: { refunded: true }, refused: undefined, answered: { kind: "given", by: null } }]);
  });
});

describe("a refusal's toolResult only watches", () => {
  it("a hook that replaces the refusal fails the call (plugin-failed), never dropped without a word", async () => {
    const { desk, lm } = refusableRefund();
    const hide: Plugin = { name: "hide", version: "1", hooks: { toolResult: (r) => (r.refused ? { output: "(refused)" } : undefined) } };
    const chat = desk.conversation("sam", { store: memoryStore(), lm: lm(), approve: "changes", plugins: [hide] });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    const [turn] = await chat.turns();
    await expect(turn!.deny({ by: "maria", reason: "not today" })).rejects.toMatchObject({
      code: "plugin-failed",
      message: /hide replaced the refusal/,
    });
  });

  it("one that hands it back as it is goes on", async () => {
    const { desk, lm } = refusableRefund();
    const same: Plugin = { name: "same", version: "1", hooks: { toolResult: (r) => ({ output: r.output }) } };
    const chat = desk.conversation("sam", { store: memoryStore(), lm: lm(), approve: "changes", plugins: [same] });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    const [turn] = await chat.turns();
    expect(await turn!.deny({ by: "maria", reason: "not today" })).toBe("Not refunded.");
  });
});

describe("an answer the run that told it went on after, then died", () => {
  it("a result given, told, then the process dies during the next model request: the run after does not tell it again", async () => {
    const dir = recordsDir();
    const chat = (await hungDesk()).conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang) });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const desk = await makeDesk((await linkedClient({ hang: false, record: () => undefined })).client);
    // the append that would keep the next request's reply fails, and every one after it: the process died there
    const isReply = (r: object) => (r as { kind?: string }).kind === "reply";
    const dying = faultyStore(fsStore(dir), { failOn: (call) => (call.records.some(isReply) ? "before-write" : undefined), crash: true });
    const first = watcher();
    const [turn] = await desk.conversation("sam", { store: dying, lm: deskModel(refundHang), plugins: [first.plugin] }).turns();
    await expect(turn!.resume({ results: { 1: { refunded: true } } })).rejects.toMatchObject({ code: "store-io" });
    expect(first.results.map((r) => r.answered)).toEqual([{ kind: "given", by: null }]);
    const later = watcher();
    const [again] = await desk.conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang), plugins: [later.plugin] }).turns();
    expect(await again!.resume()).toMatch(/refunded/);
    expect(later.results).toEqual([]);
  });
});
