import { z } from "zod";
import { FunctaiError } from "../errors.js";
import type { ToolSpec } from "../lm/types.js";
import type { Effects } from "../records/types.js";
import { NAME } from "./name.js";
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
    throw new FunctaiError("settings-invalid", `${kind} name ${JSON.stringify(name)} must be 1–64 letters, digits, _ or -, starting with a letter or _`);
  return name;
}

export function checkEffects(effects: unknown): Effects | undefined {
  if (effects === undefined || effects === "reads" || effects === "changes") return effects;
  throw new FunctaiError("settings-invalid", `effects must be "reads" or "changes", not ${JSON.stringify(effects)}`);
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
  if (typeof run !== "function") throw new FunctaiError("settings-invalid", `tool ${name}: run must be a function`);
  const effects = checkEffects(spec.effects);
  const inputSchema = z.object(spec.input);
  return {
    kind: "tool",
    name,
    description: spec.description ?? "",
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
      parameters = z.toJSONSchema(t.inputSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
      delete parameters.$schema;
    }
    spec = { name: t.name, description: t.description, parameters };
    specCache.set(t, spec);
  }
  return spec;
}

/** How a tool's output is shown to the model. */
export const outputText = (output: unknown): string =>
  typeof output === "string" ? output : output === undefined ? "null" : JSON.stringify(output);
