/**
 * A caller's `approve` and the tools of a program it delegates to.
 *
 * The spec (Julia page, "approve"): "approve is a setting, so it works
 * wherever settings do", and a rule is "a list of tool names and approval
 * paths … names, not ids, so a host writes rules before any call exists";
 * README ("Tools that change things"): a function is "asked at once about
 * each changing call". `delegate` (spec: "delegate makes another program a
 * tool that remembers per branch") is one way a tool call reaches such a
 * changing call. In a plain call it does: the rule and the function reach
 * the refund inside the delegated function. In a conversation they do not.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, memoryStore, type Approval } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

/** desk → delegate(billing) → refund (changes). */
function world() {
  const t = deskTools();
  const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [t.refund] });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
  // desk asks billing; billing asks for the refund; then each echoes what it saw
  const lm = scripted([
    { toolCalls: [{ name: "billing", input: { request: "refund A-1042" } }] },
    { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
    echoLast,
    echoLast,
  ]);
  return { t, desk, lm };
}

const codeOf = (e: unknown): unknown => (e as { code?: unknown } | null)?.code;

describe("a plain call: the caller's approve reaches the delegated function's tools", () => {
  it('a rule naming "refund" refuses it before it runs (approval-required, path desk/billing/refund)', async () => {
    const { t, desk, lm } = world();
    const e = await desk("Refund A-1042.", { lm, approve: ["refund"] }).catch((x: unknown) => x);
    expect(codeOf(e)).toBe("approval-required");
    expect((e as Error).message).toMatch(/^desk\/billing\/refund: /);
    expect(t.REFUNDS).toEqual([]);
  });

  it("a function is asked about the refund, and its refusal is what billing's model sees", async () => {
    const { t, desk, lm } = world();
    const asked: string[] = [];
    const manager = (a: Approval) => (asked.push(a.path), a.name === "billing" ? true : "Refunds need a manager.");
    expect(await desk("Refund A-1042.", { lm, approve: manager })).toBe(
      "saw: saw: The person did not allow this call. Reason: Refunds need a manager.",
    );
    expect(asked).toEqual(["desk/billing", "desk/billing/refund"]);
    expect(t.REFUNDS).toEqual([]);
  });
});

describe("a conversation: the same settings on the same tools", () => {
  it('under "changes" the delegated call itself waits for a person, and nothing ran', async () => {
    const { t, desk, lm } = world();
    const e = await desk.conversation("sam", { store: memoryStore(), approve: "changes", lm }).send("Refund A-1042.").catch((x: unknown) => x);
    expect(codeOf(e)).toBe("turn-waiting");
    expect((e as { approvals: Approval[] }).approvals.map((a) => [a.path, a.effects])).toEqual([["desk/billing", "changes"]]);
    expect(t.REFUNDS).toEqual([]);
  });

  // BUG: src/functions/delegate.ts:94 drops the caller's `approve` from the settings
  // the delegated conversation is opened with (`key !== "approve"`), so a rule that
  // names the inner tool (["refund"], ["billing/refund"]) never asks: the delegate
  // call "billing" is not named by it, and inside the delegated turn nobody is asked.
  // The same rule refuses in a plain call (above). Fix: give the delegated turn the
  // caller's rule (kept with its turn record, as a conversation keeps its own), so the
  // names and path endings a host wrote reach the tool wherever it runs.
  it.fails('a rule naming "refund" asks before the refund inside the delegated turn runs', async () => {
    const { t, desk, lm } = world();
    const e = await desk.conversation("sam", { store: memoryStore(), approve: ["refund"], lm }).send("Refund A-1042.").catch((x: unknown) => x);
    expect(t.REFUNDS).toEqual([]); // it ran: [["A-1042", 39]], and the send answered "saw: saw: refunded 39 for A-1042"
    expect(codeOf(e)).toBe("turn-waiting");
  });

  // BUG: the same cause (src/functions/delegate.ts:94): an approve function is asked
  // about the call to billing (it says yes to that), never about the refund billing
  // makes, so a manager's "no" to refunds is bypassed by going through a delegate.
  // README: a function is "asked at once about each changing call". Fix: pass the
  // caller's approve function on to the delegated turn run in this process.
  it.fails("an approve function is asked about the refund inside the delegated turn, and its no stands", async () => {
    const { t, desk, lm } = world();
    const asked: string[] = [];
    const manager = (a: Approval) => (asked.push(a.path), a.name === "billing" ? true : "Refunds need a manager.");
    await desk.conversation("sam", { store: memoryStore(), approve: manager, lm }).send("Refund A-1042.").catch(() => undefined);
    expect(t.REFUNDS).toEqual([]); // it ran: [["A-1042", 39]]
    expect(asked.some((p) => p.endsWith("billing/refund"))).toBe(true); // asked: ["desk/billing"] only
  });
});
