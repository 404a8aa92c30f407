import type { z } from "zod";
import type { AIFunction } from "../functions/ai.js";
import { describeValue, FunctaiError } from "../errors.js";
import { checkOptionKeys } from "../evaluate/options.js";
import { checkAnswerColumns, checkInputs, checkRows, expectedOf, inputsOf, rowShape, type Row, type RowShape } from "../evaluate/rows.js";
import type { InputShape } from "../tools/types.js";
import { checkOptimizable } from "./arguments.js";
import { jsonCopy, type Demo } from "./demo.js";
import { sample } from "./sample.js";
import { isRecord } from "../runtime/values.js";

/**
 * How `labeledFewShot` picks rows: how many (`k`), which (`seed`), and the
 * column of the expected answer.
 *
 * @example
 * const options: LabeledOptions = { k: 8, seed: 1, expected: "answer" };
 * const shown = labeledFewShot(answer, train, options);
 */
export interface LabeledOptions {
  /** At most this many examples (default 16). */
  k?: number;
  /** Which rows, in which order (default 0). */
  seed?: number;
  /** The column of the expected `result`, or `{ output: column }` (as `evaluate` takes it). */
  expected?: string | Record<string, string>;
}

/** A row as a labeled example: its inputs and its expected answer; `null` when it lacks either (an optional input may be left out). */
export function labeledDemo(shape: RowShape, row: Row): Demo | null {
  // a required input holding undefined (an empty cell) is none, as an expected column holding it is (see expectedOf):
  // read as given, it refused the whole call ("row n has wrong inputs") where a row without the column was left out
  if (!shape.required.every((k) => Object.hasOwn(row, k) && row[k] !== undefined)) return null;
  const inputs = inputsOf(shape, row);
  const expected = expectedOf(shape, row);
  // the whole answer in one column, unless the output has a field named result (that column is the field)
  if (Object.hasOwn(expected, "result") && !shape.fields.includes("result")) return { inputs, outputs: { result: expected.result } };
  // an object output given field by field (own columns only: `in` found a field named constructor in every row); an
  // optional field may be left out (an empty cell), as the call's answer may leave it out: required, such rows were none
  const given = shape.fields.filter((f) => Object.hasOwn(expected, f));
  if (given.length > 0 && shape.requiredFields.every((f) => Object.hasOwn(expected, f)))
    return { inputs, outputs: { result: Object.fromEntries(given.map((f) => [f, expected[f]])) } };
  return null;
}

/**
 * The examples without a repeat: one whose inputs an earlier one (or one of
 * `shown`) has is left out. A row there twice was shown twice, two of the
 * slots spent on one question. Inputs are JSON copies, in the inputs' order.
 */
export function withoutRepeats(demos: readonly Demo[], shown: readonly Demo[] = []): Demo[] {
  const seen = new Set(shown.map((d) => JSON.stringify(d.inputs)));
  return demos.filter((d) => {
    const key = JSON.stringify(d.inputs);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Checks a count option: a whole number ≥ 0; left out (`undefined`), the
 * default. A `null` (what JSON writes for an unset number) is refused: read as
 * left out, `k: null` quietly showed 16 examples.
 */
export function count(name: string, value: unknown, fallback: number): number {
  const n = value === undefined ? fallback : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw new FunctaiError("input-invalid", `${name} is a whole number ≥ 0, not ${describeValue(n, 40)}`);
  return n;
}

/**
 * A new AI function that shows up to `k` rows (sampled with `seed`) as
 * worked examples before the live input: each row's inputs and its expected
 * answer. `fn` is unchanged.
 *
 * @example
 * const shown = labeledFewShot(answer, train, { k: 4 });
 * shown.demos.length; // 4
 */
export function labeledFewShot<S extends InputShape, O extends z.ZodType>(
  fn: AIFunction<S, O>,
  rows: readonly Row[],
  options: LabeledOptions = {},
): AIFunction<S, O> {
  checkOptimizable(fn, "labeledFewShot");
  // (null options threw a TypeError; a string was taken as no options)
  if (!isRecord(options as unknown))
    throw new FunctaiError("input-invalid", `options are an object such as { k: 4 }, not ${describeValue(options, 80)}`);
  checkOptionKeys("labeledFewShot", options, ["k", "seed", "expected"]);
  const shape = rowShape(fn, options.expected);
  checkAnswerColumns(shape);
  checkRows(shape, rows);
  const k = count("k", options.k, 16);
  const seed = count("seed", options.seed, 0);
  // a row with wrong inputs, or an answer JSON cannot keep, is refused here naming the row: found by withState,
  // it was "example n" (counted after sampling) of a state "saved from another function"
  checkInputs(fn, shape, rows, (row) => labeledDemo(shape, row) !== null);
  const demos = rows.flatMap((row, i) => {
    const d = labeledDemo(shape, row);
    return d ? [jsonCopy(d, `${shape.name}: row ${i + 1}`)] : [];
  });
  if (rows.length > 0 && demos.length === 0)
    throw new FunctaiError("input-invalid", `${shape.name}: no row has every required input (${shape.required.join(", ")}) and an expected answer`);
  return fn.withState({ instructions: fn.state().instructions, demos: sample(withoutRepeats(demos), k, seed) });
}
