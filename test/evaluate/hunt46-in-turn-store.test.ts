/**
 * Hunt 46: `evaluate` with `store` in a program's turn: each row is a one-turn conversation of the store
 * (`<run>-<n>`), outside the program's journal. When the turn goes on by running the program again (resumed after a
 * crash, or after a person's answer), the run took a new random id, so each row was sent anew in a new conversation:
 * every row's call was paid again, and the store held each row twice. In a turn the run's id now comes from the turn
 * and the run's place in it, and each row is sent with a key (a send whose key the conversation holds answers as its
 * first turn did): run again, the rows answer from the store and nothing is paid twice.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program, Waiting } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { echo, report, reportModel, rowsOf } from "./fixtures/report-turn.js";

const rows = rowsOf(["alpha", "bravo", "charlie"]);
const model = () => reportModel();

describe("evaluate with a store, in a turn that goes on after a person answers", () => {
  it("the run again finds its rows in the store: nothing paid twice, each row one conversation", async () => {
    const lm = model();
    const store = memoryStore();
    const runs: string[] = [];
    const nightly = program(
      "nightly",
      { description: "Measures echo, then sends a report.", input: { n: z.number() }, output: z.array(z.number()) },
      async () => {
        const ev = await evaluate(echo.using({ lm }), rows, { store, concurrency: 2 });
        runs.push(ev.run);
        await report({ text: `score ${ev.score}` });
        return ev.rows.map((r) => r.scores.exact_match!);
      },
    );
    const chat = nightly.conversation("nightly-1", { store, lm, approve: "changes" });
    expect(await chat.send({ n: 1 }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    expect(lm.requests).toHaveLength(4);
    const turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toEqual([1, 1, 1]);
    expect(lm.requests).toHaveLength(5); // only the report's answer
    expect(runs).toHaveLength(2);
    expect(runs[1]).toBe(runs[0]);
    for (let n = 1; n <= 3; n++) expect(await echo.conversation(`${runs[0]}-${n}`, { store }).turns()).toHaveLength(1);
  });
});
