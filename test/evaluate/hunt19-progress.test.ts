/**
 * Hunt: a host's progress callback that is async (it saves the progress, or
 * updates a page, and that fails). `onProgress` is typed `(progress) => void`,
 * which an async function is; README: "If it throws, no new row starts and
 * evaluate rejects with that error once the running rows end". A promise it
 * gives that rejects was an unhandled rejection (which ends a Node process),
 * and the run went on as if nothing had failed.
 */
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const data = Array.from({ length: 6 }, (_, i) => ({ q: `q${i}`, result: "ok" }));
const model = () => scripted(Array.from({ length: 20 }, () => "<result>\nok\n</result>"));

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

describe("an async onProgress that fails", () => {
  // evaluate and bootstrapFewShot report progress the same way; each is given the same failing callback
  const runners = {
    evaluate: (lm: ReturnType<typeof model>, onProgress: (p: { done: number }) => Promise<void>) =>
      evaluate(echo.using({ lm }), data, { concurrency: 1, onProgress }),
    bootstrapFewShot: (lm: ReturnType<typeof model>, onProgress: (p: { done: number }) => Promise<void>) =>
      bootstrapFewShot(echo, data, { teacher: lm, maxBootstrapped: 6, concurrency: 1, onProgress }),
  };

  it.each(Object.entries(runners))("%s rejects with its error, starts no new row, and leaves no unhandled rejection", async (_, start) => {
    const lm = model();
    const saved = new Error("could not save the progress");
    const run = start(lm, async (p) => {
      if (p.done === 2) throw saved;
    });
    await expect(run).rejects.toBe(saved);
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual([]);
    expect(lm.requests).toHaveLength(2);
  });

  it("an async onProgress that never settles does not keep a stopped run from settling (turn-aborted)", async () => {
    const lm = model();
    const controller = new AbortController();
    let reports = 0;
    const run = evaluate(echo.using({ lm }), data, {
      concurrency: 1,
      signal: controller.signal,
      onProgress: () => {
        reports += 1;
        return new Promise<void>(() => {}); // a page that no longer answers
      },
    });
    run.catch(() => {});
    await expect.poll(() => reports).toBe(1);
    controller.abort(new Error("enough"));
    await expect(run).rejects.toMatchObject({ code: "turn-aborted", message: expect.stringMatching(/stopped after 1 of 6 rows/) });
    expect(lm.requests).toHaveLength(1);
  });
});
