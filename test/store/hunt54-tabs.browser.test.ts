// Real Chromium (hunt 54): two tabs (this page and a same-origin frame, each with its own IndexedDB connection)
// appending to one conversation at once, and a tab closed while its appends are in flight. Every record of every
// batch carries its batch's id and size, so a reader can tell a batch cut in two from a whole one.
import { deleteDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import type { Store } from "../../src/store/types.js";
import { freshName } from "./indexeddb-cases.js";
import { openTab, type Tab } from "./fixtures/hunt54-tab.js";

/** Why `records` is not seqs 1..n of whole batches, or undefined. */
const wrong = (records: readonly ConversationRecord[]): string | undefined => {
  for (let i = 0; i < records.length; i++) if (records[i]!.seq !== i + 1) return `seq ${records[i]!.seq} at ${i + 1}`;
  const seen = new Map<string, { size: number; n: number }>();
  for (const r of records as unknown as { batch: string; size: number }[]) {
    const b = seen.get(r.batch) ?? { size: r.size, n: 0 };
    b.n++;
    seen.set(r.batch, b);
  }
  for (const [batch, b] of seen) if (b.n !== b.size) return `batch ${batch}: ${b.n} of ${b.size}`;
  return undefined;
};

/** The appending loop each tab runs (as text: it runs in the tab's realm too). Resolves to [won, lost] when `rounds` ends. */
const appender = `async (make, name, arg) => {
  const s = make(name);
  let won = 0, lost = 0;
  const batch = (tag, i) => {
    const size = 1 + (i % 3);
    return Array.from({ length: size }, () => ({ functai_conversation: 1, kind: "note", at: new Date().toISOString(), batch: tag + "-" + i, size, text: "x".repeat(arg.bytes) }));
  };
  for (let i = 0; i < arg.rounds; i++) {
    if (arg.expect) {
      const n = await s.length(arg.conversation);
      try { await s.append(arg.conversation, batch(arg.tag, i), { expect: n }); won++; }
      catch (e) { if (e && e.code === "store-conflict") lost++; else throw e; }
    } else {
      await s.append(arg.conversation, batch(arg.tag, i));
      won++;
    }
  }
  await s.close();
  return [won, lost];
}`;

describe("indexedDBStore: two tabs appending to one conversation at once", () => {
  const names: string[] = [];
  const tabs: Tab[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const t of tabs.splice(0)) t.close();
    await Promise.all(stores.splice(0).map((s) => s.close?.()));
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });
  const setUp = async (): Promise<{ name: string; tab: Tab; here: Store }> => {
    const name = freshName();
    names.push(name);
    const tab = await openTab();
    tabs.push(tab);
    const here = indexedDBStore(name);
    stores.push(here);
    return { name, tab, here };
  };

  it("without expect: every batch lands whole, seqs 1..n, none lost", async () => {
    const { name, tab, here } = await setUp();
    const rounds = 40;
    const [there, mine] = await Promise.all([
      tab.run<[number, number]>(appender, name, { conversation: "sam", rounds, tag: "there", bytes: 10, expect: false }),
      new Function("make", "name", "arg", `return (${appender})(make, name, arg);`)(indexedDBStore, name, {
        conversation: "sam",
        rounds,
        tag: "here",
        bytes: 10,
        expect: false,
      }) as Promise<[number, number]>,
    ]);
    expect([there[0], mine[0]]).toEqual([rounds, rounds]);
    const records = await here.read("sam");
    expect(wrong(records)).toBeUndefined();
    const perBatch = Array.from({ length: rounds }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
    expect(records).toHaveLength(2 * perBatch);
    expect(await here.length!("sam")).toBe(2 * perBatch);
  });

  it("compare-and-set on the length from both tabs: every win is one batch, every loss a store-conflict, nothing else", async () => {
    const { name, tab, here } = await setUp();
    const rounds = 30;
    const run = (t: "here" | "there"): Promise<[number, number]> => {
      const arg = { conversation: "sam", rounds, tag: t, bytes: 10, expect: true };
      return t === "there"
        ? tab.run<[number, number]>(appender, name, arg)
        : (new Function("make", "name", "arg", `return (${appender})(make, name, arg);`)(indexedDBStore, name, arg) as Promise<[number, number]>);
    };
    const [there, mine] = await Promise.all([run("there"), run("here")]);
    const records = await here.read("sam");
    expect(wrong(records)).toBeUndefined();
    const batches = new Set(records.map((r) => (r as unknown as { batch: string }).batch));
    expect(batches.size).toBe(there[0] + mine[0]);
    expect(there[0] + there[1] + mine[0] + mine[1]).toBe(2 * rounds);
  });

  it("a tab closed while its appends are in flight: its batches are whole or absent, the length agrees, the next append wins", async () => {
    const { name, tab, here } = await setUp();
    // appends of 1–3 records of 20 kB each, one after another, for far longer than the test lasts
    void tab.run(appender, name, { conversation: "sam", rounds: 1_000_000, tag: "there", bytes: 20_000, expect: false }).catch(() => undefined);
    const deadline = performance.now() + 30_000; // (generous: the machine is shared)
    while ((await here.length!("sam")) < 3 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    tab.close(); // (most likely inside an append's transaction: the tab appends without a pause)
    await new Promise((r) => setTimeout(r, 500));
    const n = await here.length!("sam");
    expect(n).toBeGreaterThanOrEqual(3);
    const records = await here.read("sam");
    expect(records).toHaveLength(n);
    expect(wrong(records)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(await here.length!("sam")).toBe(n); // (the closed tab writes no more)
    expect(
      await here.append("sam", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString(), batch: "after", size: 1 }], { expect: n }),
    ).toBe(n + 1);
    const fresh = indexedDBStore(name);
    stores.push(fresh);
    expect(wrong(await fresh.read("sam"))).toBeUndefined();
  });
});
