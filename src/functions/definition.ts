import type { z } from "zod";
import type { EarlierTurn } from "../engine/ai-call.js";
import type { Frame } from "../engine/frame.js";
import { nonFiniteWhere, notJson } from "../engine/tool-boundary.js";
import { FunctaiError, describeError } from "../errors.js";
import type { AIState, Demo } from "../optimize/demo.js";
import type { Effects } from "../records/types.js";
import type { Settings } from "../settings.js";
import type { InputShape, ToolLike } from "../tools/types.js";
import { copyOf } from "../runtime/values.js";
import { issuesText, readWith } from "../schema-read.js";

/** What `ai` and `program` share: a typed signature and a body run in a frame. */
export interface Definition {
  readonly kind: "ai" | "program";
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodObject<InputShape>;
  readonly output: z.ZodType;
  /** Settings given at definition. */
  readonly settings: Settings;
  /** As a tool: what rules see. */
  readonly toolEffects: Effects | null;
  execute(frame: Frame, input: Record<string, unknown>, history: readonly EarlierTurn[]): Promise<unknown>;
  /** The interface recorded in a conversation's `program` record. */
  describe(): Record<string, unknown>;
  /** AI functions: the worked examples shown before the live input (never run, never recorded). */
  readonly demos?: readonly Demo[];
  /** AI functions: the same function with other instructions and examples. */
  withState?(state: AIState): Definition;
  /** AI functions: the tools the model is offered (a program calls its tools in its code, unlisted). */
  readonly tools?: readonly ToolLike[];
}

/**
 * The tool a call at `path` (`desk/charge`, or `desk/helper/charge` inside an
 * AI function used as a tool) is of, as the definitions list their tools;
 * `undefined` where they do not (a program's tools are called in its code).
 */
export function toolAt(def: Definition, path: string): ToolLike | undefined {
  const [root, ...names] = path.split("/");
  if (root !== def.name) return undefined;
  let tools = def.tools;
  let found: ToolLike | undefined;
  for (const name of names) {
    found = tools?.find((t) => t.name === name);
    if (found === undefined) return undefined;
    // an AI function used as a tool lists its own (own property: a hand-made tool is asked for nothing of its own)
    const inner: unknown = found.composite && Object.hasOwn(found, "definition") ? (found as { definition?: unknown }).definition : undefined;
    tools = typeof inner === "object" && inner !== null ? (inner as Definition).tools : undefined;
  }
  return found;
}

/** A record of keys: `{ … }`, or an object without a prototype (`Object.create(null)`, as `querystring.parse` gives). */
const isPlainObject = (x: unknown): x is Record<string, unknown> => {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
};

/**
 * Checks a call's input before anything is sent. With one input, its value
 * alone may be given: `answer("Where is A-1042?")`. What is checked is what
 * the call keeps: a copy, so what a schema passes through as it is
 * (`z.any()`) and the caller goes on changing after the call is neither
 * shown to the model, nor run, nor journaled unchecked.
 */
export function parseInput(def: Definition, input: unknown): Record<string, unknown> {
  let data: Record<string, unknown>;
  try {
    data = copyOf(readInput(def, input));
  } catch (e) {
    if (e instanceof FunctaiError) throw e;
    // a getter or Proxy trap of the input, or the schema (a refinement's bug, an async one), threw while it was read: refused like any wrong input
    throw new FunctaiError("input-invalid", `${def.name}: the input could not be read (${describeError(e)}). Nothing was sent to the model.`, {
      cause: e,
    });
  }
  // (kept in the journal: a BigInt or a cycle is refused here, not when written). Each input is looked at alone, so
  // the refusal names the one at fault: of several, "the input is not JSON (Do not know how to serialize a BigInt)"
  // left it to be hunted for (a default's value, a transform's result, one given through z.any())
  for (const [key, value] of Object.entries(data)) {
    const problem = notJson(value);
    if (problem !== undefined)
      throw new FunctaiError("input-invalid", `${def.name}: its input ${key} is not JSON (${problem}). Nothing was sent to the model.`);
  }
  // an AI function's inputs are what the model reads: NaN or Infinity (through z.any()) was shown as null, a different
  // fact ("the balance is null"), without a word. (A program's body is handed them as given; its kept inputs are
  // JSON's, read back as a resume reads them)
  const nonFinite = def.kind === "ai" ? nonFiniteWhere(data) : undefined;
  if (nonFinite !== undefined)
    throw new FunctaiError("input-invalid", `${def.name}: its input ${nonFinite}: the model would read null. Nothing was sent to the model.`);
  return data;
}

/**
 * A turn's inputs as its record kept them (JSON), given back as its first run
 * had them: parsed again by the input schema when that gives the same JSON
 * (a coerced or transformed Date is a Date again, for a program's body that
 * runs again on resume). Otherwise as kept: parsing again could change them
 * (a transform that is not idempotent).
 *
 * A program's body is user code that reads its inputs as its schema says:
 * kept inputs its schema no longer reads (a deploy added a required input,
 * or changed one's type) are refused (`input-invalid`, naming them), never
 * handed to the body as they are. Its inputs were checked to read back from
 * JSON when the turn was sent, so only a changed schema refuses them. An AI
 * function only lays its inputs out as JSON: any will do.
 */
export function keptInputs(def: Pick<Definition, "inputSchema" | "kind" | "name">, kept: Record<string, unknown>): Record<string, unknown> {
  const parsed = readWith(def.inputSchema, kept);
  if ("thrown" in parsed) {
    if (def.kind === "program")
      throw keptRefused(def.name, `its input schema threw while reading them: ${describeError(parsed.thrown)}`, parsed.thrown);
    return kept;
  }
  if (!parsed.success) {
    if (def.kind === "program") throw keptRefused(def.name, issuesText(parsed.error, "input"));
    return kept;
  }
  const again = parsed.data as Record<string, unknown>;
  return JSON.stringify(again) === JSON.stringify(kept) ? again : kept;
}

const keptRefused = (name: string, why: string, cause?: unknown): FunctaiError =>
  new FunctaiError(
    "input-invalid",
    `${name}: this turn's inputs, as it kept them, no longer fit the program's input schema (${why}): its code changed since the turn began. Nothing was written: go on with the code the turn began with, or abandon() it.`,
    cause === undefined ? undefined : { cause },
  );

function readInput(def: Definition, input: unknown): Record<string, unknown> {
  const keys = Object.keys(def.inputSchema.shape);
  let forms: unknown[] = [input];
  let shown = 0;
  if (keys.length === 1) ({ forms, shown } = singleInputForms(keys[0]!, input));
  else if (keys.length === 0 && input === undefined) forms = [{}];
  if (keys.length === 1 && isPlainObject(input) && Object.keys(input).length === 0) return emptyObjectInput(def, keys[0]!);
  if (keys.length !== 1 && !(keys.length === 0 && input === undefined) && (typeof input !== "object" || input === null || Array.isArray(input)))
    throw notAnObject(def, keys, input);
  const problems: string[][] = [];
  for (const form of forms) {
    const parsed = readWith(def.inputSchema, form);
    if ("thrown" in parsed) throw parsed.thrown; // (a getter of the input, or the schema: see parseInput)
    // a key the function does not have is refused, not dropped: a misspelt optional input would be lost unseen
    const unknown = typeof form === "object" && form !== null ? Object.keys(form).filter((k) => !Object.hasOwn(def.inputSchema.shape, k)) : [];
    if (parsed.success && unknown.length === 0) return parsed.data as Record<string, unknown>;
    const issues = parsed.success ? [] : [issuesText(parsed.error, "input")];
    if (unknown.length > 0)
      issues.push(
        `${unknown.join(", ")}: not ${unknown.length === 1 ? "an input" : "inputs"} of ${def.name} (its inputs: ${keys.join(", ") || "none"})`,
      );
    problems.push(issues);
  }
  throw new FunctaiError("input-invalid", `${def.name}: wrong input (${problems[shown]!.join("; ")}). Nothing was sent to the model.`);
}

/**
 * A value alone (`two("Where is A-1042?")`), given to a function of several
 * inputs or none: zod's "expected object, received string" named neither
 * the inputs it takes nor how to give them. (The value is not repeated: it
 * may be a person's words.)
 */
function notAnObject(def: Definition, keys: readonly string[], input: unknown): FunctaiError {
  const given = Array.isArray(input) ? "an array" : input === null ? "null" : input === undefined ? "none given" : `a ${typeof input}`;
  const how =
    keys.length === 0
      ? `${def.name} takes no inputs: call ${def.name}({})`
      : `${def.name} takes its ${keys.length} inputs (${keys.join(", ")}) as an object { ${keys.join(", ")} }; a value alone is taken only by a function of one input`;
  return new FunctaiError("input-invalid", `${def.name}: wrong input (${given}): ${how}. Nothing was sent to the model.`);
}

/**
 * `{}` given to a function of one input: the whole input with that input
 * left out, or `{}` as its value. Where only one reading fits, or both give
 * the same input (a default of `{}`), that is taken. Where both fit and
 * differ (an optional object of optional fields, a record), the call is
 * ambiguous: taken as the value, a call (or an evaluate row) meant to leave
 * the input out sent the model `{}`, and a program's body was handed `{}`
 * for an input it was told was absent. It is refused before any model call,
 * saying how to write each.
 */
function emptyObjectInput(def: Definition, key: string): Record<string, unknown> {
  const asValue = readWith(def.inputSchema, { [key]: {} });
  const asWhole = readWith(def.inputSchema, {});
  // (a reading the schema threw on does not fit; where neither fits, what it threw is said, the value's first)
  const value = "thrown" in asValue || !asValue.success ? undefined : (asValue.data as Record<string, unknown>);
  const whole = "thrown" in asWhole || !asWhole.success ? undefined : (asWhole.data as Record<string, unknown>);
  if (value === undefined || whole === undefined) {
    if (value !== undefined) return value;
    if (whole !== undefined) return whole;
    if ("thrown" in asValue) throw asValue.thrown;
    if ("thrown" in asWhole) throw asWhole.thrown;
    // neither: the object form's problems (the input's own), as any wrong input shows them
    throw new FunctaiError("input-invalid", `${def.name}: wrong input (${issuesText(asWhole.error!, "input")}). Nothing was sent to the model.`);
  }
  if (sameJson(value, whole)) return whole;
  throw new FunctaiError(
    "input-invalid",
    `${def.name}: {} is ambiguous for its one input ${key}, which may be left out and may be {}: call ${def.name}({ ${key}: {} }) to give {} as its value, or ${def.name}() (or { ${key}: undefined }) to leave it out. Nothing was sent to the model.`,
  );
}

const sameJson = (a: unknown, b: unknown): boolean => {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false; // not JSON (refused below anyway): never taken as the same
  }
};

/**
 * How a single input's call may be read, most likely first: `{ q }` is the
 * object form, anything else the value alone. An object that has no other
 * key is read both ways, so that the value alone may itself be such an
 * object: the form that fits is taken (`{}` is read by `emptyObjectInput`,
 * before this: it may leave out an optional input, as `z.input` types it,
 * or be the value, and is refused where both fit and differ). An object with
 * the key and others is the value alone if that fits, else the object form
 * with a key too many. `shown` is the form whose problems a refusal shows:
 * the object form, whenever the input may be one.
 */
function singleInputForms(key: string, input: unknown): { forms: unknown[]; shown: number } {
  const alone = { [key]: input };
  if (!isPlainObject(input)) return { forms: [alone], shown: 0 };
  const own = Object.keys(input);
  if (own.length === 1 && own[0] === key) return { forms: [input, alone], shown: 0 };
  return own.length === 0 || own.includes(key) ? { forms: [alone, input], shown: 1 } : { forms: [alone], shown: 0 };
}

/** Shapes made so far, by type: a type's shape is made once (each new conversation records it). */
const shapes = new WeakMap<z.ZodType, unknown>();

/** A short description of a zod type for the `program` record's interface (frozen: it is shared). */
export function shapeOf(type: z.ZodType): unknown {
  let shape = shapes.get(type);
  if (shape === undefined) {
    shape = deepFreeze(jsonShape(type));
    shapes.set(type, shape);
  }
  return shape;
}

function jsonShape(type: z.ZodType): unknown {
  try {
    const schema = (type as unknown as { toJSONSchema?: () => Record<string, unknown> }).toJSONSchema?.();
    if (schema) {
      delete schema.$schema;
      return schema;
    }
  } catch {
    // some types have no JSON Schema: the interface only names them
  }
  return { type: "unknown" };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
