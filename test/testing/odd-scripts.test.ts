/**
 * Scripts and clocks given in shapes a test writer gets wrong: they are
 * refused with a FunctaiError saying what is wrong, never read as something
 * else (an empty reply, one reply per character, time running backwards).
 */
import { describe, expect, it } from "vitest";
import { FunctaiError } from "../../src/index.js";
import { fakeClock, faultyStore, memoryStore, scripted, type ScriptedReply } from "../../src/testing/index.js";
import type { Fault } from "../../src/testing/faulty-store.js";

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };

describe("scripted: replies of odd shapes", () => {
  it("a script that is not a list is refused (settings-invalid), not read a character at a time", () => {
    for (const replies of ["Hello.", undefined, null, { 0: "Hi." }, 42])
      expect(() => scripted(replies as unknown as ScriptedReply[])).toThrow(expect.objectContaining({ code: "settings-invalid" }));
  });

  it("a reply function that returns a promise is refused (provider-response), not taken as an empty reply", async () => {
    const lm = scripted([(async () => "Hi.") as unknown as ScriptedReply]);
    const failed = await lm.generate(ask).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(FunctaiError);
    expect(failed).toMatchObject({ code: "provider-response", message: expect.stringContaining("promise") });
  });

  it("a reply object that is not plain data, or has a key a reply does not have, is refused (provider-response)", async () => {
    for (const reply of [new Date(0), new Map([["text", "Hi."]]), { txt: "Hi." }, { text: "Hi.", toolcalls: [{ name: "find", input: {} }] }]) {
      const failed = await scripted([reply as unknown as ScriptedReply]).generate(ask).catch((e: unknown) => e);
      expect(failed, String(reply)).toBeInstanceOf(FunctaiError);
      expect(failed).toMatchObject({ code: "provider-response" });
    }
    const typo = await scripted([{ txt: "Hi." } as unknown as ScriptedReply]).generate(ask).catch((e: unknown) => e);
    expect((typo as Error).message).toContain("txt");
  });

  it("chunks that are not a list of strings are refused (provider-response)", async () => {
    for (const chunks of ["Hi.", [1, 2], [null]]) {
      const failed = await scripted([{ chunks } as unknown as ScriptedReply]).generate(ask, { onText: () => {} }).catch((e: unknown) => e);
      expect(failed, JSON.stringify(chunks)).toBeInstanceOf(FunctaiError);
      expect(failed).toMatchObject({ code: "provider-response" });
    }
  });
});

describe("fakeClock: two advances at once", () => {
  it("time never moves back: an advance that ends after a longer one started with it leaves the clock at the later time", async () => {
    const clock = fakeClock(0);
    const fired: number[] = [];
    clock.after(10, () => fired.push(clock.now()));
    const short = clock.advance(100);
    const long = clock.advance(1_000); // starts at 10, once the first timer fired: ends at 1_010
    await long;
    expect(clock.now()).toBe(1_010);
    await short;
    expect(clock.now()).toBe(1_010);
    expect(fired).toEqual([10]);
  });
});

describe("fakeClock: timers of odd lengths", () => {
  it("a timer of NaN ms fires at the next advance, as setTimeout's does, not never; every(NaN) as every(0)", async () => {
    const clock = fakeClock(0);
    const fired: string[] = [];
    clock.after(Number.NaN, () => fired.push(`after@${clock.now()}`));
    const tick = clock.every(Number.NaN, () => fired.push(`every@${clock.now()}`));
    await clock.advance(2);
    tick.cancel();
    expect(fired).toEqual(["after@0", "every@0", "every@1", "every@2"]); // as every(0)
    expect(clock.pending).toBe(0);
  });
});

describe("faultyStore: a fault plan of odd shape", () => {
  it("a fault that is neither before-write nor after-write is refused (settings-invalid), not left out so the append goes through", async () => {
    expect(() => faultyStore(memoryStore(), { failOn: { 1: "before_write" as Fault } })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    const store = faultyStore(memoryStore(), { failOn: () => "crash" as Fault });
    const failed = await store.append("c", [{ kind: "x" }]).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(FunctaiError);
    expect(failed).toMatchObject({ code: "settings-invalid" });
    expect(await store.inner.read("c")).toEqual([]);
  });
});
