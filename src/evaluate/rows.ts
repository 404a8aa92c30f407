import { z } from "zod";
import type { Callable } from "../functions/callable.js";
import type { Definition } from "../functions/definition.js";
import { nonFiniteWhere, notJson } from "../engine/tool-boundary.js";
import { FunctaiError, describeError } from "../errors.js";
import { issuesText, readWith } from "../schema-read.js";
import { copyOf } from "../runtime/values.js";

/**
 * A row of data: columns named like the function's inputs, and the expected outputs.
 *
 * @example
 * const rows: Row[] = [
 *   { question: "Where is A-1042?", result: "Stuck at the carrier." },
 *   { question: "Can I return B-7?", result: "Yes, within 30 days." },
 * ];
 * const ev = await evaluate(answer, rows);
 */
export type Row = Record<string, unknown>;

/** Which columns of a row feed a function, and which hold the outputs it should give. */
export interface RowShape {
  name: string;
  inputs: readonly string[];
  /** The inputs a row must hold (the others are optional). */
  required: readonly string[];
  /** Output name → the column that holds its expected value. */
  expected: Readonly<Record<string, string>>;
  /** The fields of an object output (each is an output of its own; one named `result` stands for `result`), else none. */
  fields: readonly string[];
  /** The fields an answer must hold (an optional field may be left out). */
  requiredFields: readonly string[];
  /** Outputs named like an input, whose expected column (by default, their name) is that input's: see checkAnswerColumns. */
  inputNamed: readonly string[];
  /** Whether the function is an AI function (its answers are what a model writes: JSON), not a program. */
  ai: boolean;
}

/** A record of columns: a literal, or one without a prototype (as CSV and query readers often make them). */
const isPlainObject = (x: unknown): x is Record<string, unknown> => {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
};

/**
 * Whether an input may be left out: its schema reads undefined. One that
 * throws reading it (a transform or refinement that throws, an async
 * refinement) does not: a plain call without it is refused too.
 */
function acceptsAbsent(schema: z.ZodType): boolean {
  const read = readWith(schema, undefined);
  return "success" in read && read.success;
}

/**
 * The outputs of a function: `result`, and for an object output each of its
 * fields. `expected` names other columns: a column for `result`, or
 * `{ output: column }`.
 */
export function rowShape(fn: Callable<any, any>, expected: string | Record<string, string> | undefined): RowShape {
  const def = fn?.definition;
  if (!def) throw new FunctaiError("input-invalid", "evaluate: the first argument is an AI function or a program");
  const fields = def.output instanceof z.ZodObject ? Object.keys(def.output.shape) : [];
  // an object output's own `result` field is that output: its column is compared with the field, not the whole object
  const outputs = ["result", ...fields.filter((f) => f !== "result")];
  let columns: Record<string, string>;
  if (expected === undefined) columns = Object.fromEntries(outputs.map((o) => [o, o]));
  else if (typeof expected === "string" && expected !== "") columns = { result: expected };
  else if (isPlainObject(expected) && Object.values(expected).every((c) => typeof c === "string" && c !== "")) {
    const unknown = Object.keys(expected).filter((o) => !outputs.includes(o));
    if (unknown.length > 0)
      throw new FunctaiError("input-invalid", `${def.name}: expected names ${unknown.join(", ")}, not an output (outputs: ${outputs.join(", ")})`);
    columns = expected as Record<string, string>;
  } else throw new FunctaiError("input-invalid", `${def.name}: expected is a column name or { output: column }, not ${JSON.stringify(expected)}`);
  const shapeOfInputs = def.inputSchema.shape as Record<string, z.ZodType>;
  const required = Object.keys(shapeOfInputs).filter((k) => !acceptsAbsent(shapeOfInputs[k]!));
  const shapeOfOutput = def.output instanceof z.ZodObject ? (def.output.shape as Record<string, z.ZodType>) : {};
  const requiredFields = fields.filter((f) => !acceptsAbsent(shapeOfOutput[f]!));
  const inputs = Object.keys(shapeOfInputs);
  const inputNamed = expected === undefined ? Object.keys(columns).filter((o) => inputs.includes(o)) : [];
  return { name: def.name, inputs, required, expected: columns, fields, requiredFields, inputNamed, ai: def.kind === "ai" };
}

/**
 * Checks the rows are a list of objects (a user's data: refused before any
 * model call), each of whose columns the run reads (the inputs and the
 * expected outputs) can be read. A source that fails as a row or a cell is
 * read (an ORM's lazy getter, a Proxy over a file paged in) made the run
 * reject with its own raw error, no code and no row named; it is refused
 * here (`input-invalid`, naming the row and the column, the error kept as
 * the cause).
 */
export function checkRows(shape: RowShape, rows: unknown): asserts rows is Row[] {
  if (!Array.isArray(rows)) throw new FunctaiError("input-invalid", `${shape.name}: rows are a list of objects, not ${typeof rows}`);
  const unreadable = (where: string, e: unknown): FunctaiError =>
    new FunctaiError("input-invalid", `${shape.name}: ${where} could not be read (${describeError(e)}). Nothing was sent to the model.`, { cause: e });
  let length: number;
  try {
    length = rows.length;
  } catch (e) {
    throw unreadable("the rows' length", e);
  }
  const columns = [...new Set([...shape.inputs, ...Object.values(shape.expected)])];
  for (let i = 0; i < length; i++) {
    let r: unknown;
    try {
      r = rows[i];
    } catch (e) {
      throw unreadable(`row ${i + 1}`, e);
    }
    if (!isPlainObject(r)) {
      const what =
        r === null ? "null" : Array.isArray(r) ? "a list" : typeof r === "object" ? `a ${r.constructor?.name ?? "class"} instance` : typeof r;
      throw new FunctaiError("input-invalid", `${shape.name}: row ${i + 1} is not a record of columns (it is ${what})`);
    }
    for (const c of columns) {
      try {
        if (Object.hasOwn(r, c)) void r[c];
      } catch (e) {
        throw unreadable(`row ${i + 1}'s column ${c}`, e);
      }
    }
  }
}

/**
 * Checks each row's inputs as the call would (the function's input schema),
 * so a misspelt or wrongly typed column is refused up front, naming the
 * row, before any model call; and a one-input function is never handed a
 * row that lacks its required input (it would read the row's empty inputs
 * as the value). A schema that throws while it reads a row (a transform
 * or refinement that throws, an async refinement) refuses the run the same
 * way, the thrown error kept as the cause. An AI function's row holding a
 * number JSON writes as null (NaN, Infinity, an invalid Date, through
 * `z.any()`) is refused too, naming the place, as its call refuses it.
 * `only` picks the rows that are used (labeledFewShot leaves out a row
 * without its required inputs).
 */
export function checkInputs(
  fn: { readonly definition: Pick<Definition, "inputSchema" | "kind"> },
  shape: RowShape,
  rows: readonly Row[],
  only: (row: Row) => boolean = () => true,
): void {
  const schema = fn.definition.inputSchema;
  rows.forEach((row, i) => {
    if (!only(row)) return;
    const parsed = readWith(schema, inputsOf(shape, row));
    if ("thrown" in parsed)
      // what the schema throws (a transform or refinement that throws, an async refinement): refused as a plain call refuses it
      throw new FunctaiError(
        "input-invalid",
        `${shape.name}: row ${i + 1}'s inputs could not be read (${describeError(parsed.thrown)}); its columns named like the inputs (${shape.inputs.join(", ")}) are the call's input. Nothing was sent to the model.`,
        { cause: parsed.thrown },
      );
    if (parsed.success) {
      // as a call refuses them (a BigInt column, a Set): taken here, every row failed on its own and scored 0 unseen
      const problem = notJson(parsed.data);
      if (problem !== undefined)
        throw new FunctaiError(
          "input-invalid",
          `${shape.name}: row ${i + 1}'s inputs are not JSON (${problem}), and a call's input must be. Nothing was sent to the model.`,
        );
      // what the model reads of an AI function's inputs is JSON: taken here, that row's call alone was refused (once
      // the rows before it were paid for) and scored 0 as if the function were wrong; as an example, it was shown as null
      const nonFinite = fn.definition.kind === "ai" && isPlainObject(parsed.data) ? nonFiniteWhere(parsed.data) : undefined;
      if (nonFinite === undefined) return;
      throw new FunctaiError(
        "input-invalid",
        `${shape.name}: row ${i + 1}'s input ${nonFinite}: the model would read null. Nothing was sent to the model.`,
      );
    }
    throw new FunctaiError(
      "input-invalid",
      `${shape.name}: row ${i + 1} has wrong inputs (${issuesText(parsed.error, "input")}); its columns named like the inputs (${shape.inputs.join(", ")}) are the call's input. Nothing was sent to the model.`,
    );
  });
}

/** The row's columns named like the function's inputs. */
export const inputsOf = (shape: RowShape, row: Row): Row =>
  // a one-input function's row names its input, undefined where the row has none: `{}` alone is ambiguous there
  // (the input left out, or `{}` as its value) and refused, where the up-front check read the row as leaving it out
  shape.inputs.length === 1
    ? { [shape.inputs[0]!]: Object.hasOwn(row, shape.inputs[0]!) ? row[shape.inputs[0]!] : undefined }
    : Object.fromEntries(shape.inputs.filter((k) => Object.hasOwn(row, k)).map((k) => [k, row[k]]));

/** The expected outputs the row names (only those it holds, undefined or NaN being none). */
// a column holding undefined (an empty cell) names no answer: compared, it scored 0 unseen, and as an example it made a state JSON could not keep.
// NaN is how data readers give an empty numeric cell: no answer a model writes is NaN (JSON has none), so it names none either
export const expectedOf = (shape: RowShape, row: Row): Row =>
  Object.fromEntries(
    Object.entries(shape.expected)
      .filter(([, c]) => Object.hasOwn(row, c) && row[c] !== undefined && !Number.isNaN(row[c]))
      .map(([o, c]) => [o, row[c]]),
  );

/** A call's answer as named outputs: `result`, and each field of an object output (a field named `result` is `result`). */
export function outputsOf(shape: RowShape, value: unknown): Row {
  const outputs: Row = { result: value };
  if (isPlainObject(value)) for (const f of shape.fields) if (Object.hasOwn(value, f)) outputs[f] = value[f];
  return outputs;
}

/**
 * Refuses expected outputs read from an input's column (before any model
 * call): by default an output's expected column is the one named like it,
 * and for an output named like an input (a rewriter's `text`) that is the
 * input itself. Each answer was scored against what the call was given
 * (case folding let an upper-cased copy pass), and examples answered with
 * their own input. `expected` names the column.
 */
export function checkAnswerColumns(shape: RowShape): void {
  if (shape.inputNamed.length === 0) return;
  const named = shape.inputNamed.join(", ");
  // for an object output, its fields (the whole answer's `result` column is rarely what a row holds)
  const outputs = shape.fields.length > 0 ? shape.fields : Object.keys(shape.expected);
  const example = outputs.map((o) => `${o}: "${shape.inputNamed.includes(o) ? `expected_${o}` : shape.expected[o]}"`).join(", ");
  throw new FunctaiError(
    "input-invalid",
    `${shape.name}: ${named} ${shape.inputNamed.length === 1 ? "is an output named like an input" : "are outputs named like inputs"}, so the expected column would be the input itself; name the expected columns, e.g. expected: { ${example} }. Nothing was sent to the model.`,
  );
}

/**
 * Without a metric every row must name an expected output: refused up front, before any model call. So is an AI
 * function's row expecting a number JSON has none for (Infinity, or NaN or an invalid Date inside a list or an
 * object): no answer a model writes is one, so the row scored 0 whatever the function did, pulling the mean down
 * without a word. (A program's answer may be Infinity, and is compared with it.)
 */
export function checkExpected(shape: RowShape, rows: readonly Row[]): void {
  const bad = rows.findIndex((row) => Object.keys(expectedOf(shape, row)).length === 0);
  if (bad >= 0) {
    const columns = [...new Set(Object.values(shape.expected))].join(", ");
    throw new FunctaiError(
      "input-invalid",
      `${shape.name}: row ${bad + 1} has no expected column (${columns}) and no metric was given; give the expected outputs, expected: "column", or a metric. Nothing was sent to the model.`,
    );
  }
  if (!shape.ai) return;
  rows.forEach((row, i) => {
    const expected = expectedOf(shape, row);
    // looked at only when JSON writes it: an expected BigInt is compared by value (nonFiniteWhere would tell its write error)
    const nonFinite = notJson(expected) === undefined ? nonFiniteWhere(expected) : undefined;
    if (nonFinite !== undefined)
      throw new FunctaiError(
        "input-invalid",
        `${shape.name}: row ${i + 1}'s expected ${nonFinite}: no answer a model writes can match it, so the row would score 0 whatever the answer. Nothing was sent to the model.`,
      );
  });
}

/**
 * Refuses (`input-invalid`, before any model call) a row whose data a metric
 * could not be given, or compared: a column whose getter throws, or a Proxy
 * whose traps do, at any depth. A custom metric is given a copy of each
 * whole row (`columns` left out): given the user's row itself, it could
 * change it, and failed the row when it read that column, once the call was
 * paid for. The default metric compares the expected `columns`, item by item:
 * one that throws deep inside failed its row after the call too.
 */
export function checkRowsCopyable(shape: RowShape, rows: readonly Row[], columns?: readonly string[]): void {
  rows.forEach((row, i) => {
    const unreadable = (where: string, e: unknown): FunctaiError =>
      new FunctaiError(
        "input-invalid",
        `${shape.name}: ${where} could not be read (${describeError(e)}); ${columns === undefined ? "a metric is given a copy of each whole row" : "the expected outputs are compared item by item"}. Nothing was sent to the model.`,
        { cause: e },
      );
    let read: readonly string[];
    try {
      read = columns === undefined ? Object.keys(row) : columns.filter((c) => Object.hasOwn(row, c));
    } catch (e) {
      throw unreadable(`row ${i + 1}'s columns`, e);
    }
    for (const c of read) {
      try {
        copyOf(row[c]);
      } catch (e) {
        throw unreadable(`row ${i + 1}'s column ${c}`, e);
      }
    }
  });
}
