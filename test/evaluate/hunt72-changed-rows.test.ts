/**
 * Hunt 72: `evaluate` with a `store`, in a program's turn, sends row n to the conversation `<run>-<n>` with that key.
 * When the rows changed before the turn went on (read again from a data set edited meanwhile, a row added at the
 * top), the key named the first run's other question: the row failed ("input-invalid: … the key … was sent with
 * other inputs"), scored 0, and the run's score fell for a reason that is no fault of the function; a row added at
 * the top failed every row after it. Without a store the same turn calls a changed row again. Now the run's id
 * names its rows' inputs as well as its place and function: other rows are another run, called anew, and the same
 * rows are found again (nothing paid twice).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program, Waiting } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { echo, report, reportModel, rowsOf } from "./fixtures/report-turn.js";

const model = () => reportModel();

async function resumedWith(first: string[], then: string[]) {
  const lm = model();
  const store = memoryStore();
  let rows = rowsOf(first);
  const runs: { run: string; errors: (string | null)[] }[] = [];
  const nightly = program(
    "nightly",
    { description: "Measures echo, then sends a report.", input: { n: z.number() }, output: z.array(z.number()) },
    async () => {
      const ev = await evaluate(echo.using({ lm }), rows, { store, concurrency: 2 });
      runs.push({ run: ev.run, errors: ev.rows.map((r) => r.error) });
      await report({ text: "the nightly run" });
      return ev.rows.map((r) => r.scores.exact_match!);
    },
  );
  const chat = nightly.conversation("nightly-1", { store, lm, approve: "changes" });
  expect(await chat.send({ n: 1 }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
  expect(lm.requests).toHaveLength(first.length + 1);
  rows = rowsOf(then); // the data set was edited meanwhile
  const scores = await (await chat.turns()).at(-1)!.approve({ by: "maria" });
  return { lm, scores, runs };
}

describe("evaluate with a store, in a turn run again after its rows changed", () => {
  it("a row edited: every row answers its own question, none fails on the first run's key", async () => {
    const { lm, scores, runs } = await resumedWith(["alpha", "bravo", "charlie"], ["alpha", "delta", "charlie"]);
    expect(runs[1]!.errors).toEqual([null, null, null]);
    expect(scores).toEqual([1, 1, 1]);
    expect(runs[1]!.run).not.toBe(runs[0]!.run);
    expect(lm.requests).toHaveLength(4 + 3 + 1);
  });

  it("a row added at the top: no row fails", async () => {
    const { scores, runs } = await resumedWith(["alpha", "bravo"], ["zulu", "alpha", "bravo"]);
    expect(runs[1]!.errors).toEqual([null, null, null]);
    expect(scores).toEqual([1, 1, 1]);
  });

  it("the same rows (copies, read again): found again, nothing paid twice", async () => {
    const { lm, scores, runs } = await resumedWith(["alpha", "bravo", "charlie"], ["alpha", "bravo", "charlie"]);
    expect(scores).toEqual([1, 1, 1]);
    expect(runs[1]!.run).toBe(runs[0]!.run);
    expect(lm.requests).toHaveLength(4 + 1);
  });
});
