/**
 * Hunt 55: an approval list names tools, approval paths or path endings. An
 * entry that matches no tool call the function makes (`approve: ["refnd"]`,
 * or a tool given to another function) asks about nothing, silently: the
 * refund it was meant for runs without anyone being asked.
 *
 * DECIDED (the lead): such an entry is not refused. The set of calls a
 * function can make cannot be known from its definition: a plain tool's
 * body may call AI functions whose calls sit under the tool's path and are
 * asked about by the caller's rule (test/turn/tool-body-wait.test.ts), as
 * may a program's code, and host-wide rules reach functions as call options
 * (`serve`'s settings). What this file holds: every rule form that can match
 * a call is taken, and asks.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, asksApproval, configure, delegate, program, resetConfiguration, withSettings } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools } from "../engine/fixtures.js";

beforeEach(() => resetConfiguration());

const refundCall = { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] };

function desk() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund] });
  return { fn, ...t };
}

describe("every form that can match is taken, and asks", () => {
  it("a name, the whole path, a path ending: each asks about the refund (a plain call: approval-required)", async () => {
    for (const entry of ["refund", "desk/refund"]) {
      const { fn, REFUNDS } = desk();
      const lm = scripted([refundCall, "done"]);
      await expect(fn("Refund A-1042.", { lm, approve: [entry] })).rejects.toMatchObject({ code: "approval-required" });
      expect(REFUNDS).toEqual([]);
    }
  });

  it("tools inside an AI function used as a tool count: by name, by path ending, by whole path", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.findOrder, t.refund] });
    const support = ai("support", { description: "Support.", input: { message: z.string() }, tools: [answer] });
    for (const entry of ["refund", "answer/refund", "support/answer/refund", "answer"]) {
      const lm = scripted([{ toolCalls: [{ name: "answer", input: { question: "refund A-1" } }] }, refundCall, "ok", "done"]);
      await expect(support("help", { lm, approve: [entry] })).rejects.toMatchObject({ code: "approval-required" });
    }
    expect(t.REFUNDS).toEqual([]);
  });

  it("an AI function's own rule may name its calls as a caller sees them (it may be a tool): taken", async () => {
    const t = deskTools();
    expect(() =>
      ai("answer", {
        description: "Answer.",
        input: { question: z.string() },
        tools: [t.refund],
        approve: ["support/answer/refund", "answer/refund"],
      }),
    ).not.toThrow();
  });

  it("inside a program, a call's whole path starts at the program", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([refundCall, "done"]);
    const outer = program("outer", { description: "d", input: { message: z.string() } }, ({ message }) =>
      fn(message, { approve: ["outer/desk/refund"] }),
    );
    await expect(outer("Refund A-1042.", { lm })).rejects.toMatchObject({ code: "approval-required" });
    expect(REFUNDS).toEqual([]);
  });

  it("a delegate of an AI function: its calls by the caller's path or by the delegated program's own", () => {
    const t = deskTools();
    const billing = ai("billing", { description: "Billing.", input: { message: z.string() }, tools: [t.refund] });
    const front = ai("front", { description: "Front.", input: { message: z.string() }, tools: [delegate(billing, { name: "accounts" })] });
    for (const entry of ["refund", "front/accounts/refund", "accounts/refund", "billing/refund", "accounts"])
      expect(() => front.using({ approve: [entry] })).not.toThrow();
  });

  it("a program's tools are called in its code: any list is taken", async () => {
    const p = program("p", { description: "d", input: { message: z.string() } }, () => "ok");
    expect(await p("go", { approve: ["anything"] })).toBe("ok");
    const { fn } = desk();
    // an AI function with a program among its tools: what the program calls cannot be known either
    const withProgram = ai("withp", { description: "d", input: { message: z.string() }, tools: [fn, p] });
    expect(() => withProgram.using({ approve: ["whatever"] })).not.toThrow();
  });

  it("configure and withSettings are for every call: a name another function's tool has is not refused there", async () => {
    const { fn } = desk();
    const lookOnly = ai("look", { description: "Look.", input: { message: z.string() }, tools: [deskTools().findOrder] });
    configure({ approve: ["refund"] });
    expect(await lookOnly("go", { lm: scripted(["seen"]) })).toBe("seen");
    await expect(fn("Refund A-1042.", { lm: scripted([refundCall, "done"]) })).rejects.toMatchObject({ code: "approval-required" });
    resetConfiguration();
    expect(await withSettings({ approve: ["refund"] }, () => lookOnly("go", { lm: scripted(["seen"]) }))).toBe("seen");
  });

  it("asksApproval is unchanged: a rule naming no call asks about nothing (conformance asks-08)", () => {
    expect(asksApproval(["email"], { name: "send_email", path: "support/send_email", effects: null })).toBe(false);
  });
});
