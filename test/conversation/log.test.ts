/**
 * The one conditional append: a lost race reads what came and decides
 * again; a refusal comes from the decision; running out of tries is a
 * clear store-conflict, with nothing written.
 */
import { describe, expect, it } from "vitest";
import { ConversationLog } from "../../src/conversation/log.js";
import { isFunctaiError } from "../../src/errors.js";
import { makeRecord } from "../../src/records/make.js";
import { memoryStore } from "../../src/testing/index.js";
import type { Store } from "../../src/store/types.js";

const stop = (turn: string) => makeRecord("stop", { turn }, Date.now());
// (a record naming a turn no turn record before it declared is damage: each test's records are its turns')
const turnRecord = (turn: string) => makeRecord("turn", { turn, parent: null, program: "p", inputs: {} }, Date.now());

describe("ConversationLog.appendIf", () => {
  it("appends at the length it saw; a writer that came first makes it read what came and decide again", async () => {
    const store = memoryStore();
    const log = new ConversationLog(store, "c");
    await log.read();
    await store.append("c", [turnRecord("other")]); // another process, after our read
    const seen: number[] = [];
    const { value, length } = await log.appendIf(async (view) => {
      seen.push(view.length);
      return { append: [turnRecord("mine")], value: (await view.state()).length };
    }, { readFirst: false });
    expect(seen).toEqual([0, 1]); // tried on what it had seen, lost, read the other's record, decided again
    expect(value).toBe(1);
    expect(length).toBe(2);
    expect((await store.read("c")).map((r) => (r as { turn?: string }).turn)).toEqual(["other", "mine"]);
  });

  it("nothing to append writes nothing; a refusal thrown by the decision writes nothing", async () => {
    const store = memoryStore();
    const log = new ConversationLog(store, "c");
    expect(await log.appendIf(() => ({ append: [], value: "nothing" }))).toEqual({ value: "nothing", length: 0 });
    await expect(log.appendIf(() => { throw new Error("no"); })).rejects.toThrow("no");
    expect(await store.read("c")).toEqual([]);
  });

  it("a race lost every time ends after maxTries with store-conflict, never loops forever", async () => {
    const base = memoryStore();
    let appends = 0;
    // every append finds a newer record first (another writer always wins)
    const store: Store = {
      read: (id, after) => base.read(id, after),
      append: async (id, records, opts) => {
        appends++;
        await base.append(id, [stop(`winner-${appends}`)]);
        return base.append(id, records, opts);
      },
    };
    const log = new ConversationLog(store, "c");
    const error = await log.appendIf(() => ({ append: [stop("mine")], value: undefined }), { maxTries: 5 }).catch((e: unknown) => e);
    expect(isFunctaiError(error, "store-conflict")).toBe(true);
    expect((error as Error).message).toMatch(/5 appends in a row lost a race/);
    expect(appends).toBe(5);
    expect((await base.read("c")).some((r) => (r as { turn?: string }).turn === "mine")).toBe(false);
  });

  it("the log's own appends are walked without reading them back", async () => {
    const base = memoryStore();
    let reads = 0;
    const store: Store = { append: (id, r, o) => base.append(id, r, o), read: (id, after) => (reads++, base.read(id, after)) };
    const log = new ConversationLog(store, "c");
    await log.read();
    const before = reads;
    await log.appendIf(() => ({ append: [turnRecord("a"), stop("a")], value: undefined }), { readFirst: false });
    expect(reads).toBe(before);
    expect((await log.read()).length).toBe(2);
  });
});

describe("ConversationLog.turnRecords", () => {
  const lease = (turn: string) => makeRecord("lease", { turn, holder: "h", until: new Date(Date.now() + 60_000).toISOString(), attempt: 1 }, Date.now());
  const ended = (turn: string) => makeRecord("ended", { turn, state: "abandoned" }, Date.now());
  const turnsOf = (records: readonly object[]) => records.map((r) => `${(r as { kind: string }).kind}:${(r as { turn?: string }).turn}`);

  it("gives a turn's records as walked, with what another writer appended since, and the conversation's length", async () => {
    const store = memoryStore();
    await store.append("c", [turnRecord("t1"), lease("t1"), turnRecord("t2"), stop("t2")]);
    const log = new ConversationLog(store, "c", undefined, undefined, true);
    await log.read();
    await store.append("c", [lease("t1"), lease("t2")]); // another process, after this log read
    const got = await log.turnRecords("t1");
    expect(got?.length).toBe(6);
    expect(turnsOf(got!.records)).toEqual(["turn:t1", "lease:t1", "lease:t1"]);
    expect(got!.records.map((r) => r.seq)).toEqual([1, 2, 5]);
    // the log's own appends are in it too (walked without reading them back)
    await log.appendIf(() => ({ append: [stop("t1")], value: undefined }), { readFirst: false });
    expect(turnsOf((await log.turnRecords("t1"))!.records)).toEqual(["turn:t1", "lease:t1", "lease:t1", "stop:t1"]);
  });

  it("has none for an ended turn, an unknown turn, a running turn's tail log, or a log that keeps none (the host reads the store)", async () => {
    const store = memoryStore();
    await store.append("c", [turnRecord("t1"), ended("t1"), stop("t1")]);
    const log = new ConversationLog(store, "c", undefined, undefined, true);
    expect(await log.turnRecords("t1")).toBeNull(); // ended: a later record of it does not start a list
    expect(await log.turnRecords("nobody")).toBeNull();
    // a log that keeps no turns' records (a watcher's, which reads many conversations) has none
    await store.append("c", [turnRecord("t2")]);
    expect(await log.turnRecords("t2")).not.toBeNull();
    expect(await new ConversationLog(store, "c").turnRecords("t2")).toBeNull();
    expect(await new ConversationLog(store, "c", undefined, 4, true).turnRecords("t2")).toBeNull();
  });

  it("refuses a conversation holding damage (hunt 155): a turn goes on from no records the reader skipped", async () => {
    const store = memoryStore();
    // a lease of a turn no turn record declared: damage, as every read of the conversation says
    await store.append("c", [turnRecord("t1"), lease("t9")]);
    const log = new ConversationLog(store, "c", undefined, undefined, true);
    await expect(log.turnRecords("t1")).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringContaining("record 2") });
    await expect(log.turnRecords("t9")).rejects.toMatchObject({ code: "store-corrupt" });
  });

  it("walks the whole log again when what came was not the records after its own, and still gives the turn's records", async () => {
    const base = memoryStore();
    await base.append("c", [turnRecord("t1")]);
    const log = new ConversationLog(base, "c", undefined, undefined, true);
    await log.read();
    // an append that lands after another writer's record: the log's own records are not the ones after what it saw
    const store: Store = {
      read: (id, after) => base.read(id, after),
      append: async (id, records, opts) => {
        await base.append(id, [lease("t1")]);
        return base.append(id, records);
      },
    };
    const racing = new ConversationLog(store, "c", undefined, undefined, true);
    await racing.read();
    await racing.appendIf(() => ({ append: [stop("t1")], value: undefined }), { readFirst: false });
    expect(turnsOf((await racing.turnRecords("t1"))!.records)).toEqual(["turn:t1", "lease:t1", "stop:t1"]);
    expect((await racing.turnRecords("t1"))!.length).toBe(3);
  });
});
