/**
 * Hunt 42: `evaluate` and `bootstrapFewShot` given a `signal` put a listener on it for each running row, and one more
 * for each metric or async `onProgress` being awaited. Past 10 at once (`concurrency: 12`, or fewer rows with a judge
 * metric), Node printed "MaxListenersExceededWarning: Possible EventTarget memory leak detected" on every such run: no
 * leak (each was taken off), but a host's logs said so. A run now puts one listener on the signal, whatever its
 * concurrency, and each row's stop is told from it.
 */
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, program, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { watched } from "../fixtures/abort-listeners.js";

const warnings: string[] = [];
const onWarning = (w: Error): void => {
  warnings.push(`${w.name}: ${w.message}`);
};
beforeEach(() => {
  warnings.length = 0;
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const slow = program("slow", { description: "Echo, slowly.", input: { q: z.string() }, output: z.string() }, async ({ q }) => {
  await pause(20);
  return q;
});
const rows = Array.from({ length: 24 }, (_, i) => ({ q: `q${i}`, result: `q${i}` }));

describe("a run's signal holds one listener, whatever the rows at once", () => {
  it("evaluate at its default concurrency, with an async metric and an async onProgress", async () => {
    const controller = new AbortController();
    const seen = watched(controller.signal);
    const ev = await evaluate(slow, rows, {
      signal: controller.signal,
      metric: async () => {
        await pause(5);
        return 1;
      },
      onProgress: async () => {
        await pause(1);
      },
    });
    expect(ev.score).toBe(1);
    await pause(20);
    expect(seen.most()).toBeLessThanOrEqual(1);
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });

  it("evaluate stopped mid-run still stops every running row", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const held = program("held", { description: "Wait.", input: { q: z.string() }, output: z.string() }, async ({ q }, ctx) => {
      started.push(q);
      await new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
      return q;
    });
    const run = evaluate(held, rows, { signal: controller.signal, concurrency: 12 });
    run.catch(() => {});
    await expect.poll(() => started.length).toBe(12);
    controller.abort(new Error("enough"));
    await expect(run).rejects.toMatchObject({ code: "turn-aborted", message: expect.stringContaining("after 0 of 24 rows") });
    expect(started).toHaveLength(12);
  });

  it("bootstrapFewShot with 12 rows at once", async () => {
    const wait = tool("wait", { description: "Wait a moment.", input: {}, effects: "reads" }, async () => {
      await pause(10);
      return "ok";
    });
    const echo = ai("echo", { description: "Wait, then say ok.", input: { q: z.string() }, tools: [wait] });
    const lm = scripted(
      Array.from(
        { length: 60 },
        () => (req: LMRequest) => (req.messages.at(-1)!.role === "tool" ? "<result>\nok\n</result>" : { toolCalls: [{ name: "wait", input: {} }] }),
      ),
    );
    const controller = new AbortController();
    const seen = watched(controller.signal);
    const data = Array.from({ length: 24 }, (_, i) => ({ q: `q${i}`, result: "ok" }));
    const better = await bootstrapFewShot(echo, data, {
      teacher: lm,
      maxBootstrapped: 24,
      maxLabeled: 24,
      concurrency: 12,
      signal: controller.signal,
    });
    expect(better.demos).toHaveLength(24);
    await pause(20);
    expect(seen.most()).toBeLessThanOrEqual(1);
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });
});
