/**
 * Story 4 of `npm start`: a tool loop measured on ten rows, improved with
 * worked examples that keep their tool calls, and measured again.
 *
 * The scripted model looks an order up only when the customer says "order"
 * (it guesses "on its way" for a "parcel"), unless its request shows a
 * worked example that used the tool: then it always looks it up, as a real
 * model shown such examples tends to.
 */
import { z } from "zod";
import { ai, bootstrapFewShot, compare, evaluate, tool, type LanguageModel, type LMRequest, type Progress } from "functai";
import { scripted } from "functai/testing";
import { bold, cyan, dim, green, header, isScripted, json, model, say, type Reply } from "./shared.js";

const PARCELS: Record<string, string> = {
  "P-101": "delivered", "P-102": "stuck at the carrier", "P-103": "on its way", "P-104": "in the warehouse",
  "P-105": "returned to sender", "P-106": "delivered", "P-107": "out for delivery", "P-108": "lost",
  "P-109": "on its way", "P-110": "held at customs",
};

const trackParcel = tool(
  "track_parcel",
  { description: "Where a parcel is now.", input: { parcel: z.string() }, effects: "reads" },
  ({ parcel }) => ({ parcel, status: PARCELS[parcel] ?? "unknown" }),
);

const tracker = ai("tracker", {
  description: "Say where the customer's parcel is, in the tracking system's words (a few words, no sentence).",
  input: { question: z.string() },
  tools: [trackParcel],
});

/** Ten rows: the right answer needs the tool; some questions say "order", some "parcel". */
const ROWS = Object.entries(PARCELS).map(([id, status], i) => ({
  question: i % 2 === 0 ? `Where is my order ${id}?` : `Any news of parcel ${id}?`,
  result: status,
}));

/** Looks up when asked about an "order", or when an example in the request used a tool; else guesses. */
function trackerBrain(req: LMRequest): Reply {
  const last = req.messages.at(-1)!;
  if (last.role === "tool") return `<result>\n${String((JSON.parse(last.content) as { status: string }).status)}\n</result>`;
  const question = last.content;
  const shownTools = req.messages.some((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0);
  if (/order/.test(question) || shownTools) return { toolCalls: [{ name: "track_parcel", input: { parcel: /P-\d+/.exec(question)?.[0] ?? "" } }] };
  return "<result>\non its way\n</result>";
}

/** A scripted model with enough replies for three runs over the rows (or the real model when a key is set). */
const trackerModel = (): LanguageModel => (isScripted ? scripted(Array.from({ length: 80 }, () => trackerBrain)) : model(trackerBrain));

const range = (mean: number | null, low: number | null, high: number | null, sign = false): string => {
  const f = (x: number | null): string => (x === null ? "–" : `${sign && x > 0 ? "+" : ""}${x.toFixed(2)}`);
  return `${f(mean)} [${f(low)}, ${f(high)}]`;
};

const bar = (p: Progress): void => {
  if (process.stdout.isTTY) process.stdout.write(`\r  ${"█".repeat(p.done)}${"·".repeat(p.total - p.done)} ${p.done}/${p.total}`);
  if (p.done === p.total && process.stdout.isTTY) process.stdout.write("\r\x1b[K");
};

/** Evaluate, bootstrap, evaluate again; print the table with ranges. */
export async function evaluateAndImprove(): Promise<void> {
  header("4. Evaluate and optimize");
  say(dim(`A tracker tool loop, measured on ${ROWS.length} rows whose right answers need its tool (exact match).`));
  const lm = trackerModel();
  const before = await evaluate(tracker.using({ lm }), ROWS, { onProgress: bar });
  const wrong = before.rows.filter((r) => r.scores.exact_match === 0);
  say(`  before: ${bold(range(before.score, before.low, before.high))} ${dim(`(${wrong.length} wrong, e.g. ${json(wrong[0]?.row.question)} → ${json(wrong[0]?.outputs?.result)})`)}`);

  const better = await bootstrapFewShot(tracker, ROWS, { teacher: lm, maxBootstrapped: 2, maxLabeled: 2 });
  const example = better.demos[0]!;
  const step = example.steps?.[0];
  say(`  bootstrapFewShot kept ${better.demos.length} worked examples; the first is a whole recorded turn:`);
  say(`    user ${json(example.inputs.question)} → ${step ? `${bold(step.toolCalls[0]!.name)}(${json(step.toolCalls[0]!.input)}) → ${step.results[0]!.content} → ` : ""}${cyan(json(example.outputs.result))}`);
  say(dim(`  (tracker itself is unchanged: ${tracker.demos.length} examples; the new function's state() is JSON to save)`));

  const after = await evaluate(better.using({ lm: trackerModel() }), ROWS, { onProgress: bar });
  say(`  after:  ${bold(range(after.score, after.low, after.high))}`);
  say();
  say(`  ${"metric".padEnd(12)}${"before".padEnd(20)}${"after".padEnd(20)}${"diff".padEnd(22)}rows`);
  for (const c of compare(before, after)) {
    const b = before.summary.find((s) => s.metric === c.metric)!;
    const a = after.summary.find((s) => s.metric === c.metric)!;
    say(`  ${c.metric.padEnd(12)}${range(b.mean, b.low, b.high).padEnd(20)}${range(a.mean, a.low, a.high).padEnd(20)}${range(c.diff, c.low, c.high, true).padEnd(22)}${green(`${c.better} better`)}, ${c.worse} worse, ${c.same} same (n ${c.n})`);
  }
}
