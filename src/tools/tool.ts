import { z } from "zod";
import { FunctaiError, describeError, describeValue } from "../errors.js";
import type { ToolSpec } from "../lm/types.js";
import type { Effects } from "../records/types.js";
import { namedKeys, unknownKeys } from "../runtime/values.js";
import { jsonSchemaOf, refusingExtraKeys, unwritable, unwritableText } from "./json-shape.js";
import { INPUT_NAME, NAME } from "./name.js";
import type { InputShape, ToolContext, ToolLike } from "./types.js";

/**
 * What `tool()` takes besides its name and body.
 *
 * @example
 * const spec: ToolSpecInput<{ order_id: z.ZodString }> = { description: "Look an order up.", input: { order_id: z.string() }, effects: "reads" };
 */
export interface ToolSpecInput<S extends InputShape> {
  description: string;
  input: S;
  /** `"reads"` (it only looks) or `"changes"` (it writes, sends, pays). Left out, every rule treats it as `"changes"`. */
  effects?: Effects;
}

/**
 * A plain tool (`tool(...)`): typed input, a body, and what it does to the
 * world (`effects`).
 *
 * @example
 * const lookupOrder: Tool<{ id: z.ZodString }, { status: string }> = tool(
 *   "lookupOrder", { description: "Find an order.", input: { id: z.string() }, effects: "reads" },
 *   async ({ id }) => ({ status: id === "A-1042" ? "shipped" : "unknown" }),
 * );
 * lookupOrder.effects; // "reads"
 */
export interface Tool<S extends InputShape = InputShape, O = unknown> extends ToolLike {
  readonly kind: "tool";
  readonly effects: Effects | undefined;
  /** The tool's body, as given to `tool()`. */
  readonly run: (input: z.output<z.ZodObject<S>>, ctx: ToolContext) => O | Promise<O>;
}

export function checkName(kind: string, name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name))
    throw new FunctaiError(
      "settings-invalid",
      `${kind} name ${describeValue(name, 80)} must be 1–64 letters, digits, _ or -, starting with a letter or _`,
    );
  return name;
}

/** `who` names the definition (`tool refund`): among many tools, a misspelt `effects: "read"` is found by it. */
export function checkEffects(effects: unknown, who?: string): Effects | undefined {
  if (effects === undefined || effects === "reads" || effects === "changes") return effects;
  const where = who === undefined ? "" : `${who}: `;
  throw new FunctaiError("settings-invalid", `${where}effects must be "reads" or "changes", not ${describeValue(effects, 80)}`);
}

const isZodType = (value: unknown): value is z.ZodType => typeof value === "object" && value !== null && "_zod" in value;

/** What a `tool` spec holds: anything else in it is read by nothing. */
const TOOL_SPEC_KEYS = ["description", "input", "effects"] as const;

/**
 * The parts of a `tool`, `ai` or `program` spec that every later step takes
 * on trust: an object, a description that is text, an input shape of zod
 * types whose names a provider accepts, an output that is a zod type.
 * `who` names the definition in the message (`tool lookup_order`).
 *
 * `keys` are the keys the spec may hold (its own and, for `ai` and
 * `program`, the settings): any other is a slip that nothing reads
 * (`aprove: "changes"`, `tool: [refund]`, `outputs`), which would leave the
 * definition without what it meant to say, without a word: refused.
 */
export function checkSpec(who: string, spec: unknown, options: { description: "required" | "optional"; keys: readonly string[] }): void {
  if (typeof spec !== "object" || spec === null)
    throw new FunctaiError("settings-invalid", `${who}: the spec must be an object { description, input, … }, not ${describeValue(spec, 80)}`);
  const own = specKeys(who, spec);
  // each is read here first, so a getter that throws (a config not loaded yet) is said to be the definition's, not thrown raw
  for (const key of own) specValue(who, spec, key);
  const odd = unknownKeys(own, options.keys);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `${who}: ${namedKeys(odd, "is not part of its spec, and nothing would read it", "are not part of its spec, and nothing would read them")}; the spec takes ${options.keys.join(", ")}`,
    );
  const description = specValue(who, spec, "description");
  const input = specValue(who, spec, "input");
  const output = specValue(who, spec, "output");
  if (description === undefined && options.description === "required") throw new FunctaiError("settings-invalid", `${who}: a description is needed`);
  if (typeof description !== "string" && description !== undefined)
    throw new FunctaiError("settings-invalid", `${who}: description must be text, not ${describeValue(description, 80)}`);
  checkInputShape(who, input);
  if (output !== undefined && !isZodType(output))
    throw new FunctaiError("settings-invalid", `${who}: output must be a zod type (such as z.string()), not ${describeValue(output, 80)}`);
}

/** The spec's own keys; a Proxy whose trap throws is the definition's mistake, said so. */
function specKeys(who: string, spec: object): string[] {
  try {
    return Object.keys(spec);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `${who}: its spec's keys could not be read: ${describeError(e)}`, { cause: e });
  }
}

/**
 * One key of a spec, read where a throw can be told: a getter that throws
 * (`get effects() { return config.effects }` before the config is loaded)
 * is `settings-invalid` naming the definition and the key, never the raw
 * error from inside `tool()`, `ai()` or `program()`.
 */
function specValue(who: string, spec: object, key: string): unknown {
  try {
    return (spec as Record<string, unknown>)[key];
  } catch (e) {
    throw new FunctaiError("settings-invalid", `${who}: reading its spec's ${key} threw: ${describeError(e)}`, { cause: e });
  }
}

/**
 * The spec's input shape as it is now, a copy, checked: zod's `z.object(shape)`
 * keeps the object it is given, so a definition made from the shape itself
 * changed when that object did (a base shape added to for another function
 * made this one require the new input, and a key added later was never
 * checked). Called after `checkSpec`.
 */
export function inputShapeOf<S extends InputShape>(who: string, spec: object): S {
  const given = specValue(who, spec, "input");
  checkInputShape(who, given);
  const shape = Object.fromEntries(shapeEntries(who, given as object)) as S;
  checkInputShape(who, shape); // (what a getter of the shape gave when copied)
  return shape;
}

/**
 * The shape's inputs, read where a throw can be told: a getter (zod's way to
 * write a recursive shape) naming a schema defined further down, or a Proxy
 * whose trap throws, is `settings-invalid` naming the definition, never the
 * raw error from inside `tool()`, `ai()` or `program()`.
 */
function shapeEntries(who: string, input: object): [string, unknown][] {
  try {
    return Object.entries(input);
  } catch (e) {
    throw new FunctaiError(
      "settings-invalid",
      `${who}: reading its input shape threw: ${describeError(e)} (an input whose schema is defined further down is written z.lazy(() => …))`,
      { cause: e },
    );
  }
}

function checkInputShape(who: string, input: unknown): void {
  if (isZodType(input))
    throw new FunctaiError(
      "settings-invalid",
      `${who}: input must be a shape such as { order_id: z.string() }, not a zod type (for a z.object, give its .shape)`,
    );
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new FunctaiError("settings-invalid", `${who}: input must be a shape such as { order_id: z.string() }, not ${describeValue(input, 80)}`);
  for (const [key, type] of shapeEntries(who, input)) {
    if (!INPUT_NAME.test(key))
      throw new FunctaiError(
        "settings-invalid",
        `${who}: input name ${JSON.stringify(key)} must be 1–64 letters, digits, _, . or - (providers refuse any other)`,
      );
    // parsing sets the input object's prototype from it, never an input: the body would get {} whatever was given
    if (key === "__proto__")
      throw new FunctaiError("settings-invalid", `${who}: an input cannot be named __proto__ (JavaScript never keeps a value under it as an input)`);
    if (!isZodType(type))
      throw new FunctaiError("settings-invalid", `${who}: input ${key} is not a zod type (such as z.string()): ${describeValue(type, 80)}`);
  }
}

/** A body to call: a class is a function to JavaScript, but calling it without `new` throws at every tool call. */
export function checkRun(who: string, run: unknown): void {
  let isClass = false;
  try {
    isClass = typeof run === "function" && /^class\b/.test(Function.prototype.toString.call(run));
  } catch {
    // (a function whose source cannot be read is called as it is)
  }
  if (typeof run !== "function" || isClass)
    throw new FunctaiError("settings-invalid", `${who}: run must be a function, not ${isClass ? "a class" : describeValue(run, 80)}`);
}

/**
 * A typed function the model can call.
 *
 * @example
 * const lookupOrder = tool("lookup_order",
 *   { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" },
 *   ({ order_id }) => ORDERS[order_id] ?? { error: `no order ${order_id}` });
 */
export function tool<S extends InputShape, O>(
  name: string,
  spec: ToolSpecInput<S>,
  run: (input: z.output<z.ZodObject<S>>, ctx: ToolContext) => O | Promise<O>,
): Tool<S, O> {
  checkName("tool", name);
  const who = `tool ${name}`;
  checkSpec(who, spec, { description: "optional", keys: TOOL_SPEC_KEYS });
  checkRun(who, run);
  const effects = checkEffects(specValue(who, spec, "effects"), who);
  const inputSchema = modelInputSchema(name, inputShapeOf<S>(who, spec));
  refuseUnwritable(who, inputSchema, "its input");
  const description = specValue(who, spec, "description") as string | undefined;
  return {
    kind: "tool",
    name,
    description: description ?? "",
    inputSchema,
    effects,
    toolEffects: effects ?? null,
    composite: false,
    run,
    async runAsTool(input, ctx) {
      return run(input as z.output<z.ZodObject<S>>, ctx);
    },
  };
}

/**
 * Refuses (`settings-invalid`) a schema the model writes (a tool's input, an
 * AI function's answer) with a place no JSON value parses into, naming it
 * and what to use instead. What a `z.lazy` holds is looked at at the first
 * request (`toolSpec`, or an AI function's first call with `lazy`), where the
 * tool is offered or the answer asked for: its getter may name a schema
 * defined further down.
 */
export function refuseUnwritable(who: string, schema: z.ZodType, what: string, options: { forAnswer?: boolean; lazy?: boolean } = {}): void {
  let found: ReturnType<typeof unwritable>;
  try {
    found = unwritable(schema, "", options);
  } catch {
    return; // (a schema this cannot read: toolSpec, or the reply's check, says what is wrong with it)
  }
  if (found !== undefined)
    throw new FunctaiError("settings-invalid", `${who}: ${what}${found.path === "" ? "" : ` ${found.path}`} ${unwritableText(found)}`);
}

/**
 * The schema a model's call of a tool is read with: its input shape, where a
 * key that is none of its inputs is refused, never dropped. Dropped, a
 * misspelt optional input (`reasn` for `reason`) ran the tool without it, and
 * the model, told nothing, took it as given; refused, the tool does not run
 * and the model is told the key and the inputs, and calls again. (A call from
 * code refuses such a key too: functions/definition.ts readInput.) The JSON
 * Schema shown is written as before, without `additionalProperties`
 * (`jsonSchemaOf`): requests, and the request keys journals keep, are unchanged.
 */
export function modelInputSchema<S extends InputShape>(name: string, shape: S): z.ZodObject<S> {
  const inputs = Object.keys(shape).join(", ") || "none";
  const schema = z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `${issue.keys.join(", ")}: not ${issue.keys.length === 1 ? "an input" : "inputs"} of ${name} (its inputs: ${inputs})`
        : undefined,
  }) as unknown as z.ZodObject<S>;
  refusingExtraKeys.add(schema);
  return schema;
}

const specCache = new WeakMap<ToolLike, ToolSpec>();

/**
 * The tool as offered to a model: its own JSON Schema when it has one, else JSON Schema from its zod input.
 *
 * @example
 * const spec: ToolSpec = toolSpec(lookupOrder);
 * spec.parameters; // { type: "object", properties: { id: { type: "string" } }, … }
 */
export function toolSpec(t: ToolLike): ToolSpec {
  let spec = specCache.get(t);
  if (!spec) {
    let parameters = t.parameters;
    if (!parameters) {
      parameters = inputJsonSchema(t);
      delete parameters.$schema;
    }
    spec = { name: t.name, description: t.description, parameters };
    specCache.set(t, spec);
  }
  return spec;
}

/**
 * A tool's input as JSON Schema. Writing it runs the schema's own code (a
 * default's function, to show its value) and writes JSON (a cyclic default,
 * a BigInt in `.meta()` cannot be): what that throws is the tool's fault, so
 * it fails the call (`tool-failed`, naming the tool) before anything is
 * sent, never as the raw error. (Made at the first request, not in `tool()`:
 * a `z.lazy` may name a schema defined after the tool.)
 */
function inputJsonSchema(t: ToolLike): Record<string, unknown> {
  let found: ReturnType<typeof unwritable>;
  try {
    found = unwritable(t.inputSchema, "", { lazy: true });
  } catch {
    found = undefined; // (what a lazy getter threw: said below, as toJSONSchema meets it)
  }
  // (a tool whose lazy input could not be looked at when it was defined; or one made by hand)
  if (found !== undefined)
    throw new FunctaiError("settings-invalid", `tool ${t.name}: its input ${found.path} ${unwritableText(found)}. Nothing was sent.`);
  try {
    return jsonSchemaOf(t.inputSchema);
  } catch (e) {
    throw new FunctaiError(
      "tool-failed",
      `tool ${t.name}: its input schema cannot be written as JSON Schema for the model (${describeError(e)}); nothing was sent. Make its defaults (and any .meta()) plain JSON values that can be made without failing.`,
      { cause: e },
    );
  }
}

/** How a tool's output is shown to the model. */
export const outputText = (output: unknown): string => (typeof output === "string" ? output : output === undefined ? "null" : JSON.stringify(output));
