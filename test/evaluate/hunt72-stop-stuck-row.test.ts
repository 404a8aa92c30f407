/**
 * Hunt 72: `signal` stops a run ("the running calls are stopped, evaluate rejects with turn-aborted"), and a metric
 * still running at the stop fails its row at once, so that a judge that never answers cannot keep a stopped run from
 * settling. A row's call still running got no such care: the engine gives a tool that does not listen to its
 * `ctx.signal` a grace and then gives up on it, but a program whose body does not listen (a fetch without the
 * signal, a lock wait, a promise never settled) kept `evaluate` from ever settling: a nightly job given
 * `AbortSignal.timeout(…)` hung for good. Outside a turn the row's call now has the same grace after the stop, then
 * its row fails (`turn-aborted`; what the call gives later is dropped) and the run rejects with what it finished.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";

const started: string[] = [];
/** Answers "ok" at once for row "a"; for any other row it waits on something that never comes, deaf to its signal. */
const lookup = program("lookup", { description: "Looks the order up.", input: { id: z.string() }, output: z.string() }, ({ id }) => {
  started.push(id);
  return id === "a" ? "ok" : new Promise<string>(() => {});
});
const rows = [
  { id: "a", result: "ok" },
  { id: "b", result: "ok" },
  { id: "c", result: "ok" },
];

/** The promise's outcome, or "still running" once `ms` passed (generous: the grace is 5 s, the machine shared and slow). */
const within = <T>(p: Promise<T>, ms: number): Promise<T | "still running"> =>
  Promise.race([p, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms).unref())]);

describe("a run stopped while a row's call never ends", () => {
  for (const withStore of [false, true])
    it(`evaluate${withStore ? " with a store" : ""}: rejects turn-aborted, keeping the row that finished; no row starts after`, async () => {
      started.length = 0;
      const controller = new AbortController();
      const run = evaluate(lookup, rows, { signal: controller.signal, concurrency: 1, ...(withStore && { store: memoryStore() }) }).catch(
        (e: unknown) => e,
      );
      while (!started.includes("b")) await new Promise((r) => setTimeout(r, 5));
      controller.abort(new Error("the nightly window closed"));
      const error = await within(run, 20_000);
      expect(error).toMatchObject({ code: "turn-aborted" });
      const ev = (error as { evaluation: { rows: { row: unknown; error: string | null }[] } }).evaluation;
      expect(ev.rows).toEqual([expect.objectContaining({ row: rows[0], error: null })]);
      expect(started).toEqual(["a", "b"]);
    });
});
