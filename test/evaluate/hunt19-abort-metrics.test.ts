/**
 * Hunt: a run stopped by its signal while a row is being scored by a record
 * of metrics. DESIGN ("Evaluate and optimize"): a call made by evaluate or an
 * optimizer "is cancelled by signal"; the row's scoring is dropped at the
 * stop (turn-aborted), and no metric of it may start after the stop: a judge
 * metric calls a model, and each call after the stop is paid for nothing.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A record of metrics: the first takes a while (until `release()`), the second is a judge that would call a model. */
function metrics() {
  const calls = { slow: 0, judge: 0 };
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const metric = {
    slow: async () => {
      calls.slow += 1;
      await gate;
      return 1;
    },
    judge: () => {
      calls.judge += 1;
      return 1;
    },
  };
  return { calls, metric, release };
}

describe("a run stopped while a row's metrics run", () => {
  it("evaluate: no metric of the row starts after the stop (the judge is never called)", async () => {
    const { calls, metric, release } = metrics();
    const lm = scripted(["<result>\nok\n</result>"]);
    const controller = new AbortController();
    const run = evaluate(echo.using({ lm }), [{ q: "a" }], { metric, signal: controller.signal });
    run.catch(() => {});
    await expect.poll(() => calls.slow).toBe(1);
    controller.abort(new Error("enough"));
    await expect(run).rejects.toMatchObject({ code: "turn-aborted" });
    release(); // the slow metric ends after the stop
    await sleep(40);
    expect(calls).toEqual({ slow: 1, judge: 0 });
  });

  it("evaluate: a metric that stops the run (the signal aborted as it scores) is the row's last", async () => {
    const controller = new AbortController();
    const calls = { judge: 0 };
    const metric = {
      stop: () => {
        controller.abort(new Error("seen enough"));
        return 1;
      },
      judge: () => {
        calls.judge += 1;
        return 1;
      },
    };
    const lm = scripted(["<result>\nok\n</result>"]);
    await expect(evaluate(echo.using({ lm }), [{ q: "a" }], { metric, signal: controller.signal })).rejects.toMatchObject({ code: "turn-aborted" });
    await sleep(20);
    expect(calls.judge).toBe(0);
  });

  it("bootstrapFewShot: no metric of the row starts after the stop", async () => {
    const { calls, metric, release } = metrics();
    const controller = new AbortController();
    const run = bootstrapFewShot(echo, [{ q: "a" }], { metric, teacher: scripted(["<result>\nok\n</result>"]), signal: controller.signal });
    run.catch(() => {});
    await expect.poll(() => calls.slow).toBe(1);
    controller.abort(new Error("enough"));
    await expect(run).rejects.toMatchObject({ code: "turn-aborted" });
    release();
    await sleep(40);
    expect(calls).toEqual({ slow: 1, judge: 0 });
  });
});
