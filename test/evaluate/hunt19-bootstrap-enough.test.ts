/**
 * Hunt: bootstrapFewShot with rows at once (concurrency), once it has its
 * `maxBootstrapped` passing runs. DESIGN: it "runs fn over the rows in order
 * … until maxBootstrapped are found". Rows started after the last run it
 * keeps can no longer become an example; left running, every further model
 * call and tool of theirs is paid for nothing, and the optimizer waits for them.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, tool, type LMRequest, type Progress } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** Rows whose question says "quick" are answered at once; the others call a tool that waits until stopped (or released). */
function desk() {
  const count = { started: 0, stopped: 0 };
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slow = tool("slow_lookup", { description: "Looks it up, slowly.", input: { q: z.string() }, effects: "reads" }, async (_input, ctx) => {
    count.started += 1;
    await new Promise<void>((resolve) => {
      void gate.then(resolve);
      ctx.signal.addEventListener(
        "abort",
        () => {
          count.stopped += 1;
          resolve();
        },
        { once: true },
      );
    });
    return "found";
  });
  const fn = ai("finder", { description: "Answer, looking it up when needed.", input: { q: z.string() }, tools: [slow] });
  const reply = (r: LMRequest) => {
    const last = r.messages.at(-1)!;
    if (last.role === "tool") return "<result>\nfound\n</result>";
    if (last.content.includes("quick")) return "<result>\nfound\n</result>";
    return { toolCalls: [{ name: "slow_lookup", input: { q: "x" } }] };
  };
  return { count, fn, release, lm: scripted(Array.from({ length: 100 }, () => reply)) };
}

describe("bootstrapFewShot once it has its examples", () => {
  it("stops the running rows after the last example it keeps: they are not waited for to the end, nor paid for further", async () => {
    const { count, fn, lm, release } = desk();
    const rows = [
      { q: "quick one", result: "found" },
      { q: "slow two", result: "found" },
      { q: "slow three", result: "found" },
      { q: "quick four", result: "found" },
    ];
    const progress: Progress[] = [];
    const run = bootstrapFewShot(fn, rows, {
      teacher: lm,
      maxBootstrapped: 1,
      maxLabeled: 1,
      concurrency: 3,
      onProgress: (p) => progress.push({ ...p }),
    });
    const outcome = await Promise.race([run.then(() => "done"), new Promise((r) => setTimeout(() => r("still waiting"), 1500))]);
    release();
    const better = await run;
    expect(outcome).toBe("done");
    expect(better.demos.map((d) => d.inputs.q)).toEqual(["quick one"]);
    // rows 2 and 3 had started (their tool too) and were stopped; row 4 never started
    expect(count).toEqual({ started: 2, stopped: 2 });
    expect(lm.requests).toHaveLength(3);
    // the stopped rows are done, not failed: nothing went wrong with them
    expect(progress.at(-2)).toEqual({ done: 3, total: 4, failed: 0 });
    // row 4, never started, is done too: the bar ends full
    expect(progress.at(-1)).toEqual({ done: 4, total: 4, failed: 0 });
  });

  it("a row before the last example it keeps still runs to its end: it may be the example a run in order finds", async () => {
    const { count, fn, lm, release } = desk();
    // row 1 is slow and would pass; row 2 passes at once. A run in order keeps row 1.
    const rows = [
      { q: "slow one", result: "found" },
      { q: "quick two", result: "found" },
      { q: "slow three", result: "found" },
    ];
    const run = bootstrapFewShot(fn, rows, { teacher: lm, maxBootstrapped: 1, maxLabeled: 1, concurrency: 3 });
    await expect.poll(() => count.started).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    release();
    const better = await run;
    expect(better.demos.map((d) => d.inputs.q)).toEqual(["slow one"]);
    expect(better.demos[0]!.steps?.[0]?.toolCalls[0]?.name).toBe("slow_lookup");
    // row 3 (after row 2, which passed) was stopped; row 1 was not
    expect(count.stopped).toBe(1);
  });

  it("a signal given to many such runs keeps no listener of theirs once they ended", async () => {
    const controller = new AbortController();
    const live = new Set<unknown>();
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    Object.assign(signal, {
      addEventListener: (type: string, listener: EventListener, options?: AddEventListenerOptions) => {
        live.add(listener);
        add(type, listener, options);
      },
      removeEventListener: (type: string, listener: EventListener, options?: EventListenerOptions) => {
        live.delete(listener);
        remove(type, listener, options);
      },
    });
    const rows = [
      { q: "quick one", result: "found" },
      { q: "slow two", result: "found" },
      { q: "slow three", result: "found" },
    ];
    for (let n = 0; n < 10; n++) {
      const { count, fn, lm } = desk();
      const better = await bootstrapFewShot(fn, rows, { teacher: lm, maxBootstrapped: 1, maxLabeled: 1, concurrency: 3, signal });
      expect(better.demos).toHaveLength(1);
      expect(count.stopped).toBe(2);
    }
    expect(live.size).toBe(0);
  });
});
