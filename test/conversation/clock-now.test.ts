/**
 * A clock whose `now()` gives no number of milliseconds (a `Date`, a
 * string, NaN) is only found out when it is called: the conversation's
 * first use refuses it (`settings-invalid`, naming the clock) before
 * anything is written or paid, rather than writing leases whose arithmetic
 * concatenated strings, or failing mid-write with another code.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore } from "../../src/index.js";
import { fakeClock, scripted } from "../../src/testing/index.js";
import type { Clock } from "../../src/runtime/clock.js";

const wrongClock = (now: () => unknown): Clock => ({ ...fakeClock(), now } as unknown as Clock);

const BAD: [string, () => unknown][] = [
  ["a Date", () => new Date()],
  ["a string", () => String(Date.now())],
  ["NaN", () => Number.NaN],
  ["a bigint", () => BigInt(Date.now())],
];

function desk(now: () => unknown) {
  const fn = ai("desk", { description: "Answer.", input: { ask: z.string() } });
  const store = memoryStore();
  const lm = scripted(["one"]);
  return { chat: fn.conversation("c", { store, lm, clock: wrongClock(now) }), store, lm };
}

const refusal = expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining("clock") });

describe("a clock whose now() is not milliseconds", () => {
  for (const [what, now] of BAD) {
    it(`${what}: send, a keyed send, stream, turns() and turn() are refused (settings-invalid); nothing written or paid`, async () => {
      const { chat, store, lm } = desk(now);
      await expect(chat.send("hi")).rejects.toEqual(refusal);
      await expect(chat.send("hi", { key: "k1" })).rejects.toEqual(refusal);
      expect(() => chat.stream("hi")).toThrow(refusal);
      await expect(chat.turns()).rejects.toEqual(refusal);
      await expect(chat.turn("t")).rejects.toEqual(refusal);
      expect(await store.read("c")).toEqual([]);
      expect(lm.requests).toHaveLength(0);
    });
  }

  it("a now() that throws: refused the same way, the clock's error told", async () => {
    const { chat, store } = desk(() => {
      throw new Error("no time source");
    });
    await expect(chat.send("hi")).rejects.toEqual(expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining("no time source") }));
    expect(await store.read("c")).toEqual([]);
  });

  it("a clock of milliseconds whose now() reads its own fields (a class) works, from 0 on", async () => {
    const inner = fakeClock(0);
    class Ticking implements Clock {
      readonly base = 0;
      now() {
        return this.base + inner.now();
      }
      after(ms: number, fn: () => void) {
        return inner.after(ms, fn);
      }
      every(ms: number, fn: () => void) {
        return inner.every(ms, fn);
      }
    }
    const fn = ai("desk", { description: "Answer.", input: { ask: z.string() } });
    const store = memoryStore();
    const chat = fn.conversation("c", { store, lm: scripted(["one", "two"]), clock: new Ticking() });
    expect(await chat.send("hi")).toBe("one");
    expect(await chat.stream("again")).toBe("two");
    expect((await store.read("c")).every((r) => r.at === new Date(0).toISOString())).toBe(true);
  });
});
