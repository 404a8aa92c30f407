/**
 * Leaving a TurnStream's events through the iterator's own `return()`
 * (what `for await` calls on `break`, and what code that reads a stream by
 * hand calls when it wants no more) stops the turn, as a `break` does, even
 * before the first `next()`: nobody could answer or read it any more.
 */
import { describe, expect, it } from "vitest";

import { refundDesk, waitFor } from "./fixtures.js";

describe("a TurnStream's iterator, returned early", () => {
  it("return() before the first next() stops a turn that waits for an approval", async () => {
    const { fn, t, lm } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    await waitFor(() => s.state === "awaitingApproval");
    expect(s.state).toBe("awaitingApproval");
    const events = s[Symbol.asyncIterator]();
    expect(await events.return!(undefined)).toEqual({ done: true, value: undefined });
    expect(s.actor.getSnapshot().status).not.toBe("active");
    expect(s.state).toBe("stopped");
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(t.REFUNDS).toEqual([]);
  });

  it("return() after the first next() stops it too (as a break does)", async () => {
    const { fn, t, lm } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    await waitFor(() => s.state === "awaitingApproval");
    const events = s[Symbol.asyncIterator]();
    expect((await events.next()).done).toBe(false);
    await events.return!(undefined);
    expect(s.state).toBe("stopped");
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(t.REFUNDS).toEqual([]);
  });
});
