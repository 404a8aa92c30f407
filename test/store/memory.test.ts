import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { rec, storeContract } from "./contract.js";

storeContract("memory store", async () => ({ store: memoryStore() }));

describe("memory store, beyond the contract", () => {
  it("says its durability is memory", () => {
    expect(memoryStore().durability).toBe("memory");
  });

  it("keeps records frozen, so nobody edits the journal through a read", async () => {
    const store = memoryStore();
    const given = rec("x", { list: [1] });
    await store.append("c", [given]);
    given["kind"] = "changed-after-append";
    const [got] = await store.read("c");
    expect(got!.kind).toBe("x");
    expect(() => {
      (got as { kind: string }).kind = "edited";
    }).toThrow(TypeError);
  });

  it("close ends pending waits with false", async () => {
    const store = memoryStore();
    const waiting = store.wait!("c", 0, 60_000);
    await store.close!();
    expect(await waiting).toBe(false);
  });

  it("a timed-out wait leaves no waiter behind", async () => {
    const store = memoryStore();
    for (let i = 0; i < 50; i++) expect(await store.wait!("c", 0, 0)).toBe(false);
    // A later append must still wake a fresh waiter exactly once.
    const waiting = store.wait!("c", 0, 5_000);
    await store.append("c", [rec()]);
    expect(await waiting).toBe(true);
  });

  it("appends are cheap: 100 000 single-record appends, then a tail read", async () => {
    const store = memoryStore();
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) await store.append("c", [rec("x", { i })]);
    const tail = await store.read("c", 99_998);
    const ms = performance.now() - t0;
    expect(tail.map((r) => r.seq)).toEqual([99_999, 100_000]);
    expect(ms).toBeLessThan(5_000); // quadratic copying would take minutes
  });
});
