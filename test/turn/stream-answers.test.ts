/**
 * A stream's `approve()` / `deny()` / `abort()` called at the wrong time or
 * with the wrong arguments: a clear FunctaiError (or a documented no-op),
 * never an answer silently dropped, never XState's console warning.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FunctaiError } from "../../src/index.js";
import { refundDesk as desk, waitFor } from "./fixtures.js";

/** The desk, its model, and its turn streamed under approve: "changes". */
function refundDesk() {
  const d = desk();
  return { ...d, s: d.fn.stream("Refund A-1", { lm: d.lm, approve: "changes" }) };
}

afterEach(() => vi.restoreAllMocks());

describe("a stream's answers", () => {
  it("an id named like an Object.prototype member is refused as unknown, not silently accepted", async () => {
    const { s, t } = refundDesk();
    await waitFor(() => s.state === "awaitingApproval");
    for (const id of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
      await expect(s.approve({ id })).rejects.toMatchObject({ code: "approval-unknown" });
      await expect(s.deny("no", { id })).rejects.toMatchObject({ code: "approval-unknown" });
    }
    expect(s.state).toBe("awaitingApproval");
    await s.approve();
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });

  it("after the turn ended: approve() and deny() are refused (turn-state); abort() does nothing; XState warns of nothing", async () => {
    const warn = vi.spyOn(console, "warn");
    const { s } = refundDesk();
    await waitFor(() => s.state === "awaitingApproval");
    const [approval] = s.pending;
    await s.approve();
    expect(await s).toBe("saw: refunded 39 for A-1");
    for (const answer of [s.approve(), s.deny("late"), s.approve({ id: approval!.id }), s.deny("late", { id: approval!.id })]) {
      const error = await answer.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(FunctaiError);
      expect(error).toMatchObject({ code: "turn-state", message: expect.stringContaining("done") });
    }
    s.abort();
    expect(s.state).toBe("done");
    expect(warn).not.toHaveBeenCalled();
  });

  it("approve() before anything was asked is refused (turn-state), not dropped while the turn goes on to wait", async () => {
    const { s } = refundDesk();
    expect(s.state).toBe("running");
    await expect(s.approve()).rejects.toMatchObject({ code: "turn-state" });
    await expect(s.deny("no")).rejects.toMatchObject({ code: "turn-state" });
    await waitFor(() => s.state === "awaitingApproval");
    expect(s.state).toBe("awaitingApproval");
    await s.deny("no");
    expect(await s).toBe("saw: The person did not allow this call. Reason: no");
  });

  it("arguments of the wrong kind are refused (input-invalid) and answer nothing", async () => {
    const { s, t } = refundDesk();
    await waitFor(() => s.state === "awaitingApproval");
    // what a JavaScript caller (or a cast) may pass: a conversation turn's deny({ reason }) among them
    const wrong: (() => Promise<void>)[] = [
      () => (s.approve as (o: unknown) => Promise<void>)(null),
      () => (s.approve as (o: unknown) => Promise<void>)("desk#1:1"),
      () => (s.approve as (o: unknown) => Promise<void>)({ id: 1 }),
      () => (s.approve as (o: unknown) => Promise<void>)({ by: 42 }),
      () => (s.approve as (o: unknown) => Promise<void>)({ by: { name: "maria" } }),
      () => (s.deny as (r: unknown) => Promise<void>)({ reason: "not today" }),
      () => (s.deny as (r: unknown) => Promise<void>)(42),
      () => (s.deny as (r: unknown, o: unknown) => Promise<void>)("no", "desk#1:1"),
      () => (s.deny as (r: unknown, o: unknown) => Promise<void>)("no", { by: 7 }),
    ];
    for (const answer of wrong) {
      const error = await answer().then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(FunctaiError);
      expect(error).toMatchObject({ code: "input-invalid" });
    }
    expect(s.state).toBe("awaitingApproval");
    expect(s.pending).toHaveLength(1);
    await s.approve({ by: null });
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });
});
