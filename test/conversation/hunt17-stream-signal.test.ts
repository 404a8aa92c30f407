/**
 * A call's `signal` is let go when the call settles: one long-lived signal
 * (a server's shutdown signal, a page's) given to many calls keeps no
 * listener per finished call. `send` let go of it when its turn waited
 * (rejected with `Waiting`); a conversation's `stream` whose turn waits,
 * saved, and settles with `Waiting` kept its listener for ever (its actor
 * waits, never ends): each such turn left a listener on the signal,
 * holding the whole turn, and Node warns of a leak past ten.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const desk = payDesk;
const payOnce = (n: number) => [{ toolCalls: [{ name: "pay", input: { amount: n } }] }, `paid ${n}`];

describe("a conversation stream's signal, once its turn waits, saved", () => {
  it("iterated to the wait: the stream settles with Waiting and keeps no listener on the signal", async () => {
    const { d } = desk();
    const store = memoryStore();
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) {
      const chat = d.conversation(`c${i}`, { store, lm: scripted(payOnce(i)), approve: "changes" });
      const s = chat.stream("pay", { signal: controller.signal });
      for await (const _ of s);
      await expect(s).rejects.toBeInstanceOf(Waiting);
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("awaited without a loop: the same", async () => {
    const { d } = desk();
    const controller = new AbortController();
    const s = d
      .conversation("c", { store: memoryStore(), lm: scripted(payOnce(1)), approve: "changes" })
      .stream("pay", { signal: controller.signal });
    await expect(s).rejects.toBeInstanceOf(Waiting);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("while the turn still runs the signal still stops it; answered in the loop, the turn goes on and then lets go", async () => {
    const { d, paid } = desk();
    const controller = new AbortController();
    const s = d
      .conversation("c", { store: memoryStore(), lm: scripted(payOnce(2)), approve: "changes" })
      .stream("pay", { signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    for await (const e of s) if (e.type === "approval") await s.approve({ by: "me" });
    expect(await s).toBe("paid 2");
    expect(paid).toEqual([2]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
