/**
 * Hunt 59: a listener on a turn's actor that throws (a bug in the user's own
 * code: `s.actor.on("*", …)`, `s.actor.subscribe(…)`). XState rethrows such
 * a throw from a timer: an uncaught exception, which ends a Node process
 * (a server and every other turn it runs) while the turn itself goes on.
 * Now the throw is reported (console.error), as a throwing listener of the
 * websocket companion's is, and the turn, the stream and the other
 * listeners go on.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TurnEvent } from "../../src/index.js";
import { refundDesk } from "./fixtures.js";

let uncaught: unknown[] = [];
const onUncaught = (e: unknown): void => void uncaught.push(e);
let reported: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  uncaught = [];
  process.on("uncaughtException", onUncaught);
  reported = vi.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => {
  process.off("uncaughtException", onUncaught);
  reported.mockRestore();
});
/** XState throws a listener's error from a setTimeout(0): one of 50 ms set after it runs later. */
const afterTimers = () => new Promise((r) => setTimeout(r, 50));

describe("a turn actor's listener that throws", () => {
  it("on('*'): the turn and the stream go on, every other listener is told, the throw is reported, nothing is uncaught", async () => {
    const { fn, lm, t } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    s.actor.on("*", (e) => {
      if (e.type === "approval" || e.type === "done") throw new Error(`a bug in the listener (${e.type})`);
    });
    const told: string[] = [];
    s.actor.on("*", (e) => void told.push(e.type));
    const read: TurnEvent[] = [];
    for await (const e of s) {
      read.push(e);
      if (e.type === "approval") void s.approve();
    }
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(["state", ...told]).toEqual(read.map((e) => e.type)); // (listening once the actor began: after its first state)
    expect(told).toContain("done");
    await afterTimers();
    expect(uncaught).toEqual([]);
    expect(reported).toHaveBeenCalledWith(
      expect.stringContaining("listener threw"),
      expect.objectContaining({ message: "a bug in the listener (approval)" }),
    );
    expect(reported).toHaveBeenCalledWith(
      expect.stringContaining("listener threw"),
      expect.objectContaining({ message: "a bug in the listener (done)" }),
    );
  });

  it("subscribe(): a throwing next, and a throwing complete, are reported; the turn ends as it would", async () => {
    const { fn, lm } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const seen: string[] = [];
    s.actor.subscribe({
      next: (snapshot) => {
        seen.push(snapshot.value);
        if (snapshot.value === "awaitingApproval") throw new Error("a bug in next");
      },
      complete: () => {
        throw new Error("a bug in complete");
      },
    });
    s.actor.subscribe((snapshot) => {
      if (snapshot.value === "done") throw new Error("a bug in a next function");
    });
    for await (const e of s) if (e.type === "approval") void s.approve();
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(seen).toContain("done");
    // subscribed after the end: its complete is called at once, and its throw reported too
    s.actor.subscribe({
      complete: () => {
        throw new Error("a bug in a late complete");
      },
    });
    await afterTimers();
    expect(uncaught).toEqual([]);
    const messages = reported.mock.calls.map((c: unknown[]) => (c[1] as Error).message);
    expect(messages).toEqual(expect.arrayContaining(["a bug in next", "a bug in complete", "a bug in a next function", "a bug in a late complete"]));
  });
});
