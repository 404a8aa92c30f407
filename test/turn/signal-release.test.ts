/**
 * A call's AbortSignal is let go when its turn ends: one long-lived signal
 * (a server's shutdown signal) passed to many calls does not collect a
 * listener (and a whole finished turn) per call.
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

afterEach(() => vi.restoreAllMocks());

const echo = ai("echo", { description: "Echo.", input: { message: z.string() } });

describe("a call's AbortSignal after its turn ended", () => {
  it("holds no listener of a finished call, plain or streamed, done or failed", async () => {
    const warn = vi.spyOn(console, "warn");
    const controller = new AbortController();
    const { signal } = controller;
    for (let i = 0; i < 12; i++) {
      expect(await echo(`hi ${i}`, { lm: scripted(["ok"]), signal })).toBe("ok");
      const s = echo.stream(`hi ${i}`, { lm: scripted(["ok"]), signal });
      for await (const _ of s);
      expect(await s).toBe("ok");
      await expect(echo(`hi ${i}`, { lm: scripted([]), signal })).rejects.toMatchObject({ code: "lm-script-ended" });
    }
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    controller.abort(); // late: the turns are done, nothing to stop, nothing to warn about
    expect(warn).not.toHaveBeenCalled();
  });

  it("still stops a turn that runs when it aborts", async () => {
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    // a tool that runs until its signal aborts
    const wait = tool("wait", { description: "Waits.", input: {}, effects: "reads" }, (_input, ctx) => {
      started();
      return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));
    });
    const waiter = ai("waiter", { description: "Waits.", input: { message: z.string() }, tools: [wait] });
    const call = waiter("hi", { lm: scripted([{ toolCalls: [{ name: "wait", input: {} }] }, "ok"]), signal: controller.signal });
    await running;
    controller.abort(new Error("shutdown"));
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
