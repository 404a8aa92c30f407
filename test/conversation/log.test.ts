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

describe("ConversationLog.appendIf", () => {
  it("appends at the length it saw; a writer that came first makes it read what came and decide again", async () => {
    const store = memoryStore();
    const log = new ConversationLog(store, "c");
    await log.read();
    await store.append("c", [stop("other")]); // another process, after our read
    const seen: number[] = [];
    const { value, length } = await log.appendIf(async (view) => {
      seen.push(view.length);
      return { append: [stop("mine")], value: (await view.state()).length };
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
    await log.appendIf(() => ({ append: [stop("a")], value: undefined }), { readFirst: false });
    expect(reads).toBe(before);
    expect((await log.read()).length).toBe(1);
  });
});
