import { z } from "zod";
import { isRefusalText } from "../approval/rule.js";
import { nonFiniteWhere } from "../engine/tool-boundary.js";
import { FunctaiError, describeError } from "../errors.js";
import type { Message } from "../lm/types.js";
import { issuesText, readWith, type SchemaRead } from "../schema-read.js";

/**
 * One model step of a worked example: what the model said, the tools it called, and what each returned.
 *
 * @example
 * const step: DemoStep = {
 *   text: "",
 *   toolCalls: [{ id: "c1", name: "lookupOrder", input: { id: "A-1042" } }],
 *   results: [{ id: "c1", name: "lookupOrder", content: '{"status":"at the carrier"}' }],
 * };
 */
export interface DemoStep {
  text: string;
  /** `inputError`: the model's arguments were not valid JSON (`input` is then its raw text, as the run's model read it back). */
  toolCalls: { id: string; name: string; input: unknown; inputError?: string }[];
  /**
   * `isError`: the model was told the call failed. `refused`: the call never ran, refused before it could (a
   * plugin blocked it, a person did not allow it); the model read `content`, the refusal, as a plain result (a
   * live run sends a refusal with no error flag, and so does the example).
   */
  results: { id: string; name: string; content: string; isError?: boolean; refused?: boolean }[];
}

/**
 * A worked example shown to the model before the live input: its inputs,
 * its outputs (`{ result }`), and for a recorded turn every model step with
 * its tool calls and their results. Plain JSON, so it can be saved.
 *
 * @example
 * const demo: Demo = { inputs: { question: "Where is A-1042?" }, outputs: { result: "Stuck at the carrier." } };
 * const shown = answer.withState({ ...answer.state(), demos: [demo] });
 */
export interface Demo {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  steps?: DemoStep[];
}

/**
 * What `fn.state()` gives and `fn.withState()` takes: JSON.
 *
 * @example
 * const state: AIState = (await bootstrapFewShot(answer, train)).state();
 * writeFileSync("answer.json", JSON.stringify(state));
 * const again = answer.withState(JSON.parse(readFileSync("answer.json", "utf8")) as AIState);
 */
export interface AIState {
  instructions: string;
  demos: Demo[];
}

const step = z.strictObject({
  text: z.string(),
  toolCalls: z.array(z.strictObject({ id: z.string().min(1), name: z.string().min(1), input: z.unknown(), inputError: z.string().optional() })),
  results: z.array(
    z.strictObject({
      id: z.string().min(1),
      name: z.string(),
      content: z.string(),
      isError: z.boolean().optional(),
      refused: z.boolean().optional(),
    }),
  ),
});
const demo = z.strictObject({
  inputs: z.record(z.string(), z.unknown()),
  // an undefined result is lost in JSON: the state would not load again once saved
  outputs: z.record(z.string(), z.unknown()).refine((o) => o.result !== undefined, "outputs needs result"),
  steps: z.array(step).optional(),
});
const stateSchema = z.strictObject({ instructions: z.string(), demos: z.array(demo) });

const issuesOf = (error: z.ZodError, under: string): string => error.issues.map((i) => `${[under, ...i.path].join(".")}: ${i.message}`).join("; ");

/** A tool as an example's calls are checked against it: its name, and the schema its input is read with (a `ToolLike` is one). */
export interface DemoTool {
  readonly name: string;
  readonly inputSchema?: z.ZodType;
}

/** What a state is checked against: the function's inputs (a `Definition` has them; not imported, as definition.ts imports this module). */
export interface Signature {
  readonly inputSchema: z.ZodObject<z.ZodRawShape>;
  /**
   * The function's tools, or their names (when given, an example's tool calls must name them). Given as tools (with
   * their input schemas), each call's input must also be one the tool takes now (see `staleCall`).
   */
  readonly tools?: readonly (string | DemoTool)[];
}

const toolName = (t: string | DemoTool): string => (typeof t === "string" ? t : t.name);

/**
 * Each call of a step with the result that answered it (undefined: none was
 * recorded). Results pair with calls by id, in order: the k-th call with an id
 * gets the k-th result with it (a server that gives every call of a reply
 * "call_0" answered them in order, and the first result of the id was taken for
 * each); a result whose id names no call of the step (a hand-written example's
 * `r1`) answers a call with none of its own: the first such call of its own
 * tool (results written in another order than the calls answered each call
 * with another tool's result), else the next call left.
 */
export function pairResults(step: DemoStep): (DemoStep["results"][number] | undefined)[] {
  const results = [...step.results];
  const paired = step.toolCalls.map((call) => {
    const at = results.findIndex((r) => r.id === call.id);
    return at >= 0 ? results.splice(at, 1)[0] : undefined;
  });
  const foreign = results.filter((r) => !step.toolCalls.some((c) => c.id === r.id));
  const take = (at: number) => (at >= 0 ? foreign.splice(at, 1)[0] : undefined);
  for (const [i, call] of step.toolCalls.entries()) if (paired[i] === undefined) paired[i] = take(foreign.findIndex((r) => r.name === call.name));
  for (const i of paired.keys()) paired[i] ??= take(0);
  return paired;
}

/**
 * The first call of an example whose input its tool no longer takes, and why:
 * a state saved before a tool's input schema changed (a field renamed, a type
 * narrowed) showed the model, as a call that worked, one the tool now refuses,
 * so the model copied it and each live call was refused first. A call the
 * example does not show working is left as it is: it shows a refusal, and the
 * answer that followed it. Such is a call answered with an error or with no
 * result (shown as an error), one refused before it ran (a plugin blocked it,
 * a person did not allow it: the model read the refusal, sent with no error
 * flag), and one whose arguments were not JSON (never read with the schema:
 * the engine refuses them first). A schema that throws reading an input
 * counts as refusing it (a live call would not run either).
 */
function staleCall(demo: Demo, tools: readonly (string | DemoTool)[]): string | null {
  for (const [s, step] of (demo.steps ?? []).entries()) {
    const results = pairResults(step);
    for (const [c, call] of step.toolCalls.entries()) {
      const tool = tools.find((t) => toolName(t) === call.name);
      const schema = typeof tool === "object" ? tool.inputSchema : undefined;
      if (schema === undefined) continue;
      const result = results[c];
      // (a refusal's text unmarked: a state recorded before `refused` was kept showed the model a refusal all the same)
      if (
        result === undefined ||
        result.isError === true ||
        result.refused === true ||
        isRefusalText(result.content) ||
        call.inputError !== undefined
      )
        continue;
      const read = readWith(schema, call.input);
      if ("success" in read && read.success) continue;
      const why = "thrown" in read ? `its input schema threw: ${describeError(read.thrown)}` : issuesText(read.error, "input");
      return `step ${s + 1} calls ${call.name} with an input the tool no longer takes (${why}); shown as a call that worked, it teaches the model a call ${call.name} now refuses`;
    }
  }
  return null;
}

/**
 * Why a demo does not fit a signature (an input it does not take, a tool it
 * does not have), or null. Its inputs' values are read by `readInputs`.
 */
function misfit(demo: Demo, signature: Signature, given: Record<string, unknown>): string | null {
  // the inputs as given: parsed, a JSON key __proto__ set the record's prototype instead, and was neither seen nor kept
  const foreign = Object.keys(given).filter((k) => !Object.hasOwn(signature.inputSchema.shape, k));
  if (foreign.length > 0)
    return `inputs: ${foreign.join(", ")} ${foreign.length === 1 ? "is not an input" : "are not inputs"} (inputs: ${Object.keys(signature.inputSchema.shape).join(", ")})`;
  // an example calling a tool the function no longer has (renamed, removed) would teach the model to call it
  const names = signature.tools?.map(toolName);
  const unknown =
    names === undefined ? [] : [...new Set((demo.steps ?? []).flatMap((s) => s.toolCalls.map((c) => c.name)))].filter((n) => !names.includes(n));
  if (unknown.length > 0)
    return `it calls ${unknown.join(", ")}, which ${unknown.length === 1 ? "is not a tool" : "are not tools"} of this function (its tools: ${names!.join(", ") || "none"})`;
  return signature.tools === undefined ? null : staleCall(demo, signature.tools);
}

/**
 * What of an example's steps the model would never be shown as written, or
 * null: a step that calls no tool yet says something or holds results (only
 * calls make a step's messages), a result that answers no call of its step
 * (each call is answered by one result: see pairResults), and a result naming
 * another tool than the call it answers (shown under the call's name). A
 * recording has none of these; a written example with them loaded, and the
 * model was quietly shown other than the example says.
 */
function unshown(demo: Demo): string | null {
  for (const [s, step] of (demo.steps ?? []).entries()) {
    if (step.toolCalls.length === 0) {
      if (step.text === "" && step.results.length === 0) continue;
      return `step ${s + 1} calls no tool, so its ${step.text === "" ? "results" : "text"} would never be shown (a step is a model reply that called tools; the answer is outputs.result)`;
    }
    const paired = pairResults(step);
    const left = step.results.find((r) => !paired.includes(r));
    if (left !== undefined)
      return `step ${s + 1} has a result ${JSON.stringify(left.id)} (${left.name}) that answers none of its calls (each call is answered by one result), so it would never be shown`;
    // a result is shown under the name of the call it answers: one naming another tool would be shown as this one's
    const at = step.toolCalls.findIndex((call, i) => paired[i] !== undefined && paired[i]!.name !== "" && paired[i]!.name !== call.name);
    if (at >= 0) {
      const call = step.toolCalls[at]!;
      const result = paired[at]!;
      return `step ${s + 1} has a result ${JSON.stringify(result.id)} of ${result.name} answering its call ${JSON.stringify(call.id)} of ${call.name}, so it would be shown as ${call.name}'s (a result names the tool of the call it answers)`;
    }
  }
  return null;
}

/** Whether a value is exactly a Date's ISO text (what JSON keeps of a Date). */
function isDateText(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const date = new Date(value);
  return !Number.isNaN(date.getTime()) && date.toISOString() === value;
}

/** Where a read wanted a date: the paths of its issues that expected one, inside a union's options too. */
function datePaths(issues: readonly z.core.$ZodIssue[], at: readonly PropertyKey[] = []): PropertyKey[][] {
  return issues.flatMap((issue) => {
    const path = [...at, ...issue.path];
    if (issue.code === "invalid_type" && issue.expected === "date") return [path];
    if (issue.code === "invalid_union") return issue.errors.flatMap((option) => datePaths(option, path));
    return [];
  });
}

/** Sets the Date of the ISO text at `path` (own keys only, so a key named `__proto__` is a key); whether there was such text. */
function dateAt(value: unknown, path: readonly PropertyKey[]): boolean {
  let parent = value;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null || !Object.hasOwn(parent, key)) return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const key = path.at(-1);
  if (key === undefined || typeof parent !== "object" || parent === null || !Object.hasOwn(parent, key)) return false;
  const text = (parent as Record<PropertyKey, unknown>)[key];
  if (!isDateText(text)) return false;
  Object.defineProperty(parent, key, { value: new Date(text), enumerable: true, writable: true, configurable: true });
  return true;
}

/**
 * Reads the inputs with each date's ISO text (what JSON keeps of a Date: a
 * state is JSON) read as that Date, at any depth (a date in an object input,
 * a list of dates): read as text, the schema refused every example of the
 * function as "saved from another function". Only text that is exactly a
 * Date's ISO text, where the schema refused it wanting a date (as its issues
 * say); a read may find more once those are dates (an object's refinement
 * runs once its fields read), so it is read again until none is left.
 * Inputs holding no such text are read once, as any.
 */
function readWithDates(inputs: Record<string, unknown>, signature: Signature): SchemaRead<z.ZodObject<z.ZodRawShape>> {
  let value = inputs;
  for (let round = 0; ; round++) {
    const read = readWith(signature.inputSchema, value);
    if ("thrown" in read || read.success || round === 8) return read;
    // a copy: the state keeps the example as given (text), only what the schema reads holds Dates
    const into = value === inputs ? jsonCopy(inputs, "an example's inputs") : value;
    if (datePaths(read.error.issues).filter((path) => dateAt(into, path)).length === 0) return read;
    value = into;
  }
}

/**
 * Example `n`'s inputs as the signature's input schema reads them
 * (transforms applied; an input the example leaves out is left out, its
 * default not filled): what the model is shown, as a live input is.
 * Read once, here: an example that fits is never read again. Inputs the
 * schema refuses (one missing or of the wrong type) are refused as a misfit;
 * a schema that throws while it reads them (a transform or refinement that
 * throws, an async refinement) refuses the example too (`input-invalid`,
 * the thrown error kept as the cause), as a plain call refuses such an input.
 * The answer is not checked against the output type: a labeled row's answer
 * is shown as written (`4` for a text output), which a model reads as well.
 */
function readInputs(name: string, n: number, demo: Demo, signature: Signature, given: Record<string, unknown>): Record<string, unknown> {
  const refused = (why: string) =>
    new FunctaiError(
      "input-invalid",
      `${name}.withState: example ${n} does not fit ${name}'s signature (${why}); was the state saved from another function?`,
    );
  const why = misfit(demo, signature, given);
  if (why !== null) throw refused(why);
  const inputs = readWithDates(demo.inputs, signature);
  if ("thrown" in inputs)
    throw new FunctaiError(
      "input-invalid",
      `${name}.withState: example ${n}'s inputs could not be read (${describeError(inputs.thrown)}): ${name}'s input schema threw while reading them`,
      {
        cause: inputs.thrown,
      },
    );
  if (!inputs.success) throw refused(issuesOf(inputs.error, "inputs"));
  // as the journal keeps a live input (engine/ai-call.ts asKept), so shown as it is: a value a transform made
  // undefined is left out (laid out, it threw a TypeError), a Date is its ISO text (not a quoted JSON string).
  // Only the inputs the example gives: a default it leaves out is not filled (one made anew at each read, a
  // request id, was shown with another value by each load of one saved state: not the requests `better` made)
  const read = inputs.data as Record<string, unknown>;
  const givenOnly = Object.fromEntries(Object.keys(read).flatMap((k) => (Object.hasOwn(demo.inputs, k) ? [[k, read[k]]] : [])));
  return jsonCopy(givenOnly, `${name}.withState: example ${n}'s inputs`);
}

/** A saved state loaded for a function: the state, and each example's inputs as the function reads them (`readInputs`). */
export interface LoadedState {
  /** The state as given, copied: its examples share no object with what was given, and are kept (and saved again) as given. */
  readonly state: AIState;
  /** Each example's inputs as the function's input schema read them, in the examples' order: what the model is shown. */
  readonly inputs: readonly Record<string, unknown>[];
}

/**
 * Checks a saved state (a user's data: wrong is `input-invalid`, naming what
 * is wrong) and reads its examples' inputs. Each example's inputs must fit
 * the function's signature: a state saved from another function would
 * otherwise be shown to the model as if it were this one's (other input tags).
 */
export function parseState(name: string, state: unknown, signature: Signature): LoadedState {
  const parsed = stateSchema.safeParse(state);
  if (!parsed.success) {
    throw new FunctaiError("input-invalid", `${name}.withState: not a saved state { instructions, demos } (${issuesText(parsed.error, "state")})`);
  }
  const { instructions } = parsed.data;
  // copies (checked to be JSON): what the input schema reads, or a transform changes, is never the caller's
  const demos = (parsed.data.demos as Demo[]).map((demo, i) => jsonCopy(demo, `${name}.withState: example ${i + 1}`));
  const given = (state as { demos: { inputs: Record<string, unknown> }[] }).demos;
  const inputs = demos.map((demo, i) => {
    const why = unshown(demo);
    if (why !== null) throw new FunctaiError("input-invalid", `${name}.withState: example ${i + 1}'s ${why}`);
    return readInputs(name, i + 1, demo, signature, given[i]!.inputs);
  });
  return { state: { instructions, demos }, inputs };
}

/** A recorded call as an example keeps it: `inputError` too, so its arguments are shown as the model wrote them. */
export const demoCall = ({ id, name, input, inputError }: DemoStep["toolCalls"][number]): DemoStep["toolCalls"][number] =>
  inputError === undefined ? { id, name, input } : { id, name, input, inputError };

/**
 * The steps of a recorded turn, from the messages of its last model request
 * after the live input: each assistant message that called tools, and the
 * tool results that answered it (a refusal marked `refused`: see isRefusalText).
 * A reply asked again (unreadable) is left out.
 */
export function stepsFrom(messages: readonly Message[]): DemoStep[] {
  const steps: DemoStep[] = [];
  for (const m of messages) {
    if (m.role === "assistant" && m.toolCalls?.length) {
      steps.push({ text: m.content, toolCalls: m.toolCalls.map(demoCall), results: [] });
    } else if (m.role === "tool" && steps.length > 0) {
      const result: DemoStep["results"][number] = { id: m.toolCallId, name: m.name, content: m.content };
      if (m.isError) result.isError = true;
      else if (isRefusalText(m.content)) result.refused = true;
      steps.at(-1)!.results.push(result);
    }
  }
  return steps;
}

/**
 * A deep copy through JSON, refused (`input-invalid`, naming `what`) when
 * the value is not JSON: a BigInt or a cycle threw a bare TypeError, and a
 * state is JSON or it cannot be saved. So is a number JSON writes as null
 * (NaN, Infinity, an invalid Date) when no `replacer` is given: a labeled
 * row expecting Infinity was kept answered `null`, and the model was
 * taught that answer without a word.
 */
export function jsonCopy<T>(value: T, what: string, replacer?: (key: string, value: unknown) => unknown): T {
  let copy: T;
  try {
    copy = JSON.parse(JSON.stringify(value, replacer)) as T;
  } catch (e) {
    throw new FunctaiError(
      "input-invalid",
      `${what} is not JSON, so it cannot be kept as a worked example (${(e instanceof Error ? e.message : String(e)).split("\n")[0]})`,
      { cause: e },
    );
  }
  const nonFinite = replacer === undefined && typeof value === "object" && value !== null ? nonFiniteWhere(value) : undefined;
  if (nonFinite !== undefined)
    throw new FunctaiError(
      "input-invalid",
      `${what} is not JSON (${nonFinite}), so it cannot be kept as a worked example: the model would read null`,
    );
  return copy;
}

/** A deep copy through JSON: a demo never shares objects with a turn (or another function). */
export const copyDemos = (demos: readonly Demo[]): Demo[] => jsonCopy(demos as Demo[], "the examples");
