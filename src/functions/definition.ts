import type { z } from "zod";
import type { EarlierTurn } from "../engine/ai-call.js";
import type { Frame } from "../engine/frame.js";
import { notJson } from "../engine/tool-boundary.js";
import { FunctaiError, describeError } from "../errors.js";
import type { AIState, Demo } from "../optimize/demo.js";
import type { Effects } from "../records/types.js";
import type { Settings } from "../settings.js";
import type { InputShape } from "../tools/types.js";

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
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype;

/**
 * Checks a call's input before anything is sent. With one input, its value
 * alone may be given: `answer("Where is A-1042?")`.
 */
export function parseInput(def: Definition, input: unknown): Record<string, unknown> {
  let data: Record<string, unknown>;
  try {
    data = readInput(def, input);
  } catch (e) {
    if (e instanceof FunctaiError) throw e;
    // a getter or Proxy trap of the input threw while it was read: refused like any wrong input
    throw new FunctaiError("input-invalid", `${def.name}: the input could not be read (${describeError(e)}). Nothing was sent to the model.`, { cause: e });
  }
  const problem = notJson(data); // (kept in the journal: a BigInt or a cycle is refused here, not when written)
  if (problem !== undefined) throw new FunctaiError("input-invalid", `${def.name}: the input is not JSON (${problem}). Nothing was sent to the model.`);
  return data;
}

function readInput(def: Definition, input: unknown): Record<string, unknown> {
  const keys = Object.keys(def.inputSchema.shape);
  let value = input;
  if (keys.length === 1) {
    const key = keys[0]!;
    const objectForm = isPlainObject(input) && Object.keys(input).length === 1 && key in input;
    if (!objectForm) value = { [key]: input };
  } else if (keys.length === 0 && input === undefined) value = {};
  const parsed = def.inputSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    throw new FunctaiError("input-invalid", `${def.name}: wrong input (${issues}). Nothing was sent to the model.`);
  }
  return parsed.data as Record<string, unknown>;
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
