/**
 * `evaluate` with a `store`, in a program's turn: each row is a turn of a conversation named by the run's place,
 * sent with a key, so the turn run again (after a person's answer) finds the rows it paid for. The conversation
 * compares the send's inputs with the found turn's as the input schema reads them: an input whose default is made
 * anew at each read (a timestamp, a request id) read as another value, and the key, which evaluate made and the
 * user never gave, was refused as "sent with other inputs". Every row answered in the first run failed
 * `input-invalid` in the second, scored 0. The run is named by the rows' inputs as given (hunt 72): a row's
 * conversation holds this row's answer, and an answered row is now taken from it.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, evaluate, program, Waiting } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { report, reportModel } from "./fixtures/report-turn.js";

let made = 0;
const echo = ai("echo", { description: "Say the word back.", input: { q: z.string(), asked: z.string().default(() => `t-${++made}`) } });

describe("evaluate with a store, in a turn run again, a row whose input has a default made anew", () => {
  it("the row answered in the first run is found again: not refused, not paid twice", async () => {
    const lm = reportModel();
    const store = memoryStore();
    const errors: (string | null)[][] = [];
    const nightly = program("nightly", { description: "Measures echo, then reports.", input: { n: z.number() }, output: z.number() }, async () => {
      const ev = await evaluate(echo.using({ lm }), [{ q: "alpha", result: "alpha" }], { store });
      errors.push(ev.rows.map((r) => r.error));
      await report({ text: "the nightly run" });
      return ev.score ?? -1;
    });
    const chat = nightly.conversation("nightly-1", { store, lm, approve: "changes" });
    expect(await chat.send({ n: 1 }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const score = await (await chat.turns()).at(-1)!.approve({ by: "maria" });
    expect(errors).toEqual([[null], [null]]);
    expect(score).toBe(1);
    expect(lm.requests).toHaveLength(3); // the row once, the report's tool call and its answer
  });
});
