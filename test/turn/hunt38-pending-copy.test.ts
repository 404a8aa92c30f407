/**
 * `s.pending` (the approvals a stream waits on) was the actor's own array: a
 * caller that tidied what it shows in place (`s.pending.splice(i, 1)` once it
 * answered one, a `sort` for display) emptied the actor's list, and the turn's
 * approvals could no longer be answered (`turn-state`: "has asked nothing
 * yet"), nor the `approved` events show what was asked. It gives copies now.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "../conversation/fixtures/pay-desk.js";

function desk() {
  const { d, paid } = payDesk();
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  return { d, lm, paid };
}

type Streamed = AsyncIterable<{ type: string; approval?: { input: unknown } }> &
  PromiseLike<unknown> & { pending: { id: string; input: unknown }[]; approve(): Promise<void>; abort(): void };

async function tidiedThenApproved(s: Streamed): Promise<{ answered: unknown; approvedInput: unknown }> {
  let answered: unknown = "not asked";
  let approvedInput: unknown;
  for await (const e of s) {
    if (e.type === "approved") approvedInput = e.approval?.input;
    if (e.type !== "approval") continue;
    const shown = s.pending;
    shown.splice(0); // and tidied away
    answered = await s.approve().then(
      () => "answered",
      (err: { code?: string }) => (s.abort(), err.code),
    );
  }
  return { answered, approvedInput };
}

describe("s.pending gives copies", () => {
  it("a plain stream: a caller's splice of s.pending changes nothing; the approval is answered, pay runs once as asked", async () => {
    const { d, lm, paid } = desk();
    const s = d.using({ lm, approve: "changes" }).stream("pay 5") as unknown as Streamed;
    expect(await tidiedThenApproved(s)).toEqual({ answered: "answered", approvedInput: { amount: 5 } });
    expect(await s).toBe("paid");
    expect(paid).toEqual([5]);
  });

  it("a conversation stream: the same", async () => {
    const { d, lm, paid } = desk();
    const s = d.conversation("c", { store: memoryStore(), lm, approve: "changes" }).stream("pay 5") as unknown as Streamed;
    expect(await tidiedThenApproved(s)).toEqual({ answered: "answered", approvedInput: { amount: 5 } });
    expect(await s).toBe("paid");
    expect(paid).toEqual([5]);
  });

  it("is current: an approval answered leaves it", async () => {
    const { d, lm } = desk();
    const s = d.using({ lm, approve: "changes" }).stream("pay 5") as unknown as Streamed;
    const seen: number[] = [];
    for await (const e of s) {
      if (e.type !== "approval") continue;
      seen.push(s.pending.length);
      await s.approve();
      seen.push(s.pending.length);
    }
    expect(seen).toEqual([1, 0]);
    expect(s.pending).toEqual([]);
  });
});
