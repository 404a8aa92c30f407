/**
 * Hunt 98: each StopBound race (a tool's run, a model call, a plugin's hook) put an abort listener of its own on the
 * turn's signal while it ran. A step with more than ten tool calls at once had more than ten listeners on one
 * signal, and Node printed "MaxListenersExceededWarning: Possible EventTarget memory leak detected" for a turn that
 * leaks nothing. The races pending on a signal now share one listener; a race leaves it as it settles, so a stop
 * gives up only on those still running, each after its own grace, and a long turn gathers nothing.
 *
 * The grace is driven by fake timers (no waiting on the clock): a race rejects at STOP_GRACE_MS after the stop, not
 * a millisecond before.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { STOP_GRACE_MS, StopBound } from "../../src/engine/stop-bound.js";
import { watched } from "../fixtures/abort-listeners.js";

/** A run that settles only when told to. */
function held<T>(): { run: Promise<T>; settle: (v: T) => void } {
  let settle!: (v: T) => void;
  const run = new Promise<T>((r) => (settle = r));
  return { run, settle };
}

/** How a race ended so far: its value, its error's code, or "pending". */
function outcome(p: Promise<unknown>): () => unknown {
  let now: unknown = "pending";
  p.then(
    (v) => (now = v),
    (e: unknown) => (now = (e as { code?: string }).code ?? e),
  );
  return () => now;
}

describe("StopBound: the races on one signal share one listener", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("twelve races at once put one listener on the signal; a stop gives up on the six still running after the grace", async () => {
    const controller = new AbortController();
    const seen = watched(controller.signal);
    // a long turn's worth of races that settle one after another first: they leave nothing behind
    for (let i = 0; i < 1_000; i++) expect(await new StopBound().race(Promise.resolve(i), controller.signal)).toBe(i);
    const runs = Array.from({ length: 12 }, () => held<number>());
    const bounds = runs.map(() => new StopBound());
    const ended = runs.map((r, i) => outcome(bounds[i]!.race(r.run, controller.signal)));
    expect(seen.most()).toBe(1);
    // half of them settle before the stop: only the other six are given up on
    runs.slice(0, 6).forEach((r, i) => r.settle(i));
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    expect(vi.getTimerCount()).toBe(6);
    await vi.advanceTimersByTimeAsync(STOP_GRACE_MS - 1);
    expect(ended.map((e) => e())).toEqual([0, 1, 2, 3, 4, 5, ...Array(6).fill("pending")]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ended.map((e) => e())).toEqual([0, 1, 2, 3, 4, 5, ...Array(6).fill("turn-aborted")]);
    expect(bounds.map((b) => b.gaveUp)).toEqual([...Array(6).fill(false), ...Array(6).fill(true)]);
    expect(vi.getTimerCount()).toBe(0);
    // a race begun after the stop has its own grace, from its start
    const late = outcome(new StopBound().race(held<number>().run, controller.signal));
    await vi.advanceTimersByTimeAsync(STOP_GRACE_MS - 1);
    expect(late()).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    expect(late()).toBe("turn-aborted");
    expect(seen.most()).toBe(1);
  });
});

describe("a step with twelve tool calls at once", () => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
  beforeEach(() => {
    warnings.length = 0;
    process.on("warning", onWarning);
  });
  afterEach(() => {
    process.off("warning", onWarning);
  });

  it("prints no MaxListenersExceededWarning", async () => {
    let running = 0;
    let allIn!: () => void;
    const twelve = new Promise<void>((r) => (allIn = r));
    // each call waits until all twelve run at once
    const look = tool("look", { description: "Looks.", input: { i: z.number() }, effects: "reads" }, async ({ i }) => {
      if (++running === 12) allIn();
      await twelve;
      return i;
    });
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look] });
    const lm = scripted([{ toolCalls: Array.from({ length: 12 }, (_, i) => ({ name: "look", input: { i } })) }, "done"]);
    expect(await fn.conversation("many", { store: memoryStore(), lm }).send("go")).toBe("done");
    // (a process warning is emitted on a later tick)
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });
});
