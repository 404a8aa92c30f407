/**
 * `evaluate_1000_rows_ms`: `evaluate(fn, rows)` over 1,000 rows at
 * concurrency 8, with an instant scripted model (one reply per row, so only
 * the SDK's cost is measured), exact match against each row's expected
 * answer (every fourth row answered wrong).
 *
 * The detail holds the same 1,000 rows called as plain calls (`fn(input)`,
 * 8 at a time, no scoring): the SDK's own cost per row in `evaluate` against
 * a plain call's (the goal: at most 2×), and the total goal (under 2 s).
 * No peer: evaluation is a separate product elsewhere (LangSmith, Braintrust).
 */
import { z } from "zod";
import { ai, evaluate, type LMRequest } from "../src/index.js";
import { scripted } from "../src/testing/index.js";
import { interleaved } from "./lib/interleave.js";
import { main, median, report, round, spread } from "./lib/measure.js";

const N = 1000;
const CONCURRENCY = 8;

const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() } });
const rows = Array.from({ length: N }, (_, i) => ({ question: `Where is order A-${1000 + i}?`, result: `Order A-${1000 + i} is on its way.` }));

/** Answers from the question; every fourth one wrong. */
const reply = (r: LMRequest): string => {
  const id = /A-\d+/.exec(r.messages.at(-1)!.content)?.[0] ?? "?";
  return Number(id.slice(2)) % 4 === 0 ? "<result>\nI do not know.\n</result>" : `<result>\nOrder ${id} is on its way.\n</result>`;
};
const model = () => scripted(Array.from({ length: N }, () => reply));

/** The plain calls, 8 at a time: what `evaluate` adds is measured against this. */
async function plainCalls(lm: ReturnType<typeof model>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < N) await answer(rows[next++]!.question, { lm });
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

/** Evaluate and the plain calls in rounds (lib/interleave.ts), so a change in the machine's load falls on both alike. */
async function alternating(warmup = 5, runs = 7): Promise<{ ev: number[]; plain: number[] }> {
  const { ev, plain } = await interleaved(
    {
      ev: {
        prepare: model,
        run: async (lm: ReturnType<typeof model>) => {
          const { score } = await evaluate(answer.using({ lm }), rows, { concurrency: CONCURRENCY });
          if (score !== 0.75) throw new Error(`evaluate scored ${score}, not 0.75: the workload is not what it says`);
        },
      },
      plain: { prepare: model, run: plainCalls },
    },
    { warmup, rounds: runs },
  );
  return { ev, plain };
}

await main({
  async rows1000() {
    const { ev, plain } = await alternating();
    const perRow = (ms: number): number => round((ms * 1000) / N);
    const evMs = median(ev);
    const plainMs = median(plain);
    report({
      metric: "evaluate_1000_rows_ms",
      n: N,
      unit: "ms",
      name: "ours",
      value: round(evMs),
      detail: {
        runs_ms: ev.map((x) => round(x)),
        range_ms: [round(Math.min(...ev)), round(Math.max(...ev))],
        concurrency: CONCURRENCY,
        per_row_us: perRow(evMs),
        plain_call_per_row_us: perRow(plainMs),
        plain_runs_ms: plain.map((x) => round(x)),
        cost_vs_plain_call: round(evMs / plainMs, 2),
        // per round (the two ran in the same round): a goal is met only when it holds across rounds, not in one ratio of medians
        cost_vs_plain_call_rounds: spread(
          ev.map((x, i) => x / plain[i]!),
          2,
        ),
        goals: "under 2000 ms; per row at most 2× a plain call's",
      },
    });
  },
});
