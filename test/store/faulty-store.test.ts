import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/errors.js";
import { memoryStore } from "../../src/store/memory.js";
import { faultyStore, InjectedFault } from "../../src/testing/faulty-store.js";
import { codeOf, rec, storeContract } from "./contract.js";

// With no faults planned, the wrapper is a store like any other.
storeContract("faulty store with an empty plan", async () => ({ store: faultyStore(memoryStore()) }));

describe("faultyStore", () => {
  it("before-write: the Nth append throws and writes nothing; the others go through", async () => {
    const store = faultyStore(memoryStore(), { failOn: { 2: "before-write" } });
    expect(await store.append("c", [rec()])).toBe(1);
    const error = await store.append("c", [rec(), rec()]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InjectedFault);
    expect(isFunctaiError(error, "store-io")).toBe(true);
    expect((error as InjectedFault).fault).toBe("before-write");
    expect((error as InjectedFault).call).toBe(2);
    expect(await store.inner.length!("c")).toBe(1);
    expect(await store.append("c", [rec()], { durable: false })).toBe(2);
    expect(store.stats).toEqual({ calls: 3, appends: 2, durableAppends: 1, records: 2, faults: 1 });
  });

  it("after-write: the batch is written, then the append throws before acknowledging", async () => {
    const store = faultyStore(memoryStore(), { failOn: { 1: "after-write" } });
    expect(await codeOf(() => store.append("c", [rec(), rec()], { durable: true }))).toBe("store-io");
    expect((await store.inner.read("c")).map((r) => r.seq)).toEqual([1, 2]);
    expect(await store.read("c")).toHaveLength(2); // not crashed: the wrapper still reads
    expect(store.stats).toEqual({ calls: 1, appends: 1, durableAppends: 1, records: 2, faults: 1 });
  });

  it("crash: after the first fault every call throws, like a dead process", async () => {
    const store = faultyStore(memoryStore(), { failOn: { 2: "after-write" }, crash: true });
    await store.append("c", [rec()]);
    expect(store.crashed).toBe(false);
    await expect(store.append("c", [rec()])).rejects.toBeInstanceOf(InjectedFault);
    expect(store.crashed).toBe(true);
    for (const call of [() => store.append("c", [rec()]), () => store.read("c"), () => store.length!("c"), () => store.wait!("c", 0, 10), () => store.list!()]) {
      const error = await call().catch((e: unknown) => e);
      expect((error as InjectedFault).fault).toBe("crashed");
    }
    expect(await store.inner.length!("c")).toBe(2); // the write before the crash is there
    expect(store.stats.calls).toBe(3);
    expect(store.stats.appends).toBe(2);
  });

  it("a plan function sees each call and picks its fault", async () => {
    const seen: [number, string, number, number | undefined, boolean][] = [];
    const store = faultyStore(memoryStore(), {
      failOn: (c) => {
        seen.push([c.call, c.conversation, c.records.length, c.expect, c.durable]);
        return c.durable ? "before-write" : undefined;
      },
    });
    await store.append("a", [rec()], { expect: 0, durable: false });
    await codeOf(() => store.append("b", [rec(), rec()], { durable: true }));
    await codeOf(() => store.append("b", [rec()])); // no flag: durable, the contract's default
    await store.append("b", [rec()], { durable: false });
    expect(seen).toEqual([
      [1, "a", 1, 0, false],
      [2, "b", 2, undefined, true],
      [3, "b", 1, undefined, true],
      [4, "b", 1, undefined, false],
    ]);
    expect(store.stats).toMatchObject({ appends: 2, durableAppends: 0, records: 2, faults: 2 });
  });

  it("counts batches, durable batches and records; empty and conflicting appends write nothing", async () => {
    const store = faultyStore(memoryStore());
    await store.append("c", [rec(), rec(), rec()], { durable: true });
    await store.append("c", [rec()]); // no flag: durable, the contract's default
    await store.append("c", [rec()], { durable: false });
    await store.append("c", []);
    await codeOf(() => store.append("c", [rec()], { expect: 0 }));
    expect(store.stats).toEqual({ calls: 5, appends: 3, durableAppends: 2, records: 5, faults: 0 });
  });

  it("delays appends and reads", async () => {
    const store = faultyStore(memoryStore(), { delayMs: (c) => (c === undefined ? 60 : 120) });
    let t0 = Date.now();
    await store.append("c", [rec()]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    t0 = Date.now();
    await store.read("c");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
  });

  it("a delay lets a concurrent writer in first, so `expect` conflicts", async () => {
    const inner = memoryStore();
    const slow = faultyStore(inner, { delayMs: 50 });
    const late = slow.append("c", [rec()], { expect: 0 });
    await inner.append("c", [rec()], { expect: 0 });
    expect(await codeOf(() => late)).toBe("store-conflict");
  });

  it("passes durability through and leaves out methods the inner store lacks", () => {
    const bare = faultyStore({ read: async () => [], append: async () => 0 });
    expect(bare.wait).toBeUndefined();
    expect(bare.list).toBeUndefined();
    expect(bare.durability).toBeUndefined();
    expect(faultyStore(memoryStore()).durability).toBe("memory");
  });
});
