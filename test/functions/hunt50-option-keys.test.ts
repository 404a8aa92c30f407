/**
 * A call's options are settings plus `signal` and `ctx` (and `caller`, set by
 * evaluate and the optimizers). A key that is none of them (`aprove`,
 * `maxStep`) was read by nothing: `fn(input, { aprove: "changes" })` ran a
 * refund without asking anyone, where `fn.using({ aprove })`, `configure`
 * and `withSettings` refuse the slip. It is refused (`settings-invalid`),
 * before any model call, by a call, `predict`, `stream`, and a call made
 * inside a program's turn.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, memoryStore, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools } from "../engine/fixtures.js";

const refundReply = { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] };

function desk() {
  const tools = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [tools.findOrder, tools.refund] });
  return { fn, ...tools };
}

const refused = (e: unknown, key: string): void => {
  expect(e).toBeInstanceOf(FunctaiError);
  expect((e as FunctaiError).code).toBe("settings-invalid");
  expect((e as FunctaiError).message).toContain(key);
};

describe("a call's options with a key that is no option", () => {
  it("a plain call: refused before any model call, and the refund never runs", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([refundReply, "done"]);
    const e = await fn("Refund A-1042.", { lm, aprove: "changes" } as never).catch((x: unknown) => x);
    refused(e, "aprove");
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });

  it("predict and stream refuse it too", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([refundReply, "done", refundReply, "done"]);
    refused(await fn.predict("Refund A-1042.", { lm, maxStep: 1 } as never).catch((x: unknown) => x), "maxStep");
    let thrown: unknown;
    try {
      fn.stream("Refund A-1042.", { lm, aprove: ["refund"] } as never);
    } catch (x) {
      thrown = x;
    }
    refused(thrown, "aprove");
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });

  it("a call inside a program's turn: refused, and its refund never runs", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([refundReply, "done"]);
    const outer = program("outer", { description: "d", input: { message: z.string() } }, ({ message }) =>
      fn(message, { aprove: "changes" } as never),
    );
    const e = await outer("Refund A-1042.", { lm }).catch((x: unknown) => x);
    refused(e, "aprove");
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });

  it("a conversation opened with a key that is no option: refused, and its refund never runs", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([refundReply, "done"]);
    let thrown: unknown;
    try {
      await fn.conversation("sam", { store: memoryStore(), lm, aprove: "changes" } as never).send("Refund A-1042.");
    } catch (x) {
      thrown = x;
    }
    refused(thrown, "aprove");
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
    // its own options (store, clock) and every setting are taken
    const chat = fn.conversation("sam", { store: memoryStore(), lm: scripted(["hi"]), approve: "changes", temperature: 0 });
    expect(await chat.send("Hello.")).toBe("hi");
  });

  it("a conversation's send or stream with a key that is no option: refused, nothing written, its refund never runs", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([refundReply, "done"]);
    const store = memoryStore();
    const chat = fn.conversation("sam", { store, lm });
    refused(await chat.send("Refund A-1042.", { aprove: "changes" } as never).catch((x: unknown) => x), "aprove");
    expect(() => chat.stream("Refund A-1042.", { aprove: "changes" } as never)).toThrow(/aprove/);
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
    expect(await store.read("sam")).toEqual([]);
    // its own options (key, signal) and every setting are taken
    const ok = fn.conversation("kim", { store, lm: scripted(["hi"]) });
    expect(await ok.send("Hello.", { key: "k1", signal: new AbortController().signal, temperature: 0 })).toBe("hi");
  });

  it("settings, signal, ctx and caller are still taken", async () => {
    const { fn } = desk();
    const lm = scripted(["one"]);
    const p = await fn.predict("Hi.", { lm, temperature: 0, maxSteps: 2, toolErrors: "raise", approve: null, signal: new AbortController().signal });
    expect(p.result).toBe("one");
  });
});
