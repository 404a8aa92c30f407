/**
 * Reading a value with a user's zod schema. `safeParse` gives back what the
 * schema refuses, and lets what it throws escape (a refinement with a bug, a
 * transform whose lookup failed, an async refinement): `readWith` gives that
 * back too, as `thrown`, so each caller says whose fault it is in its own
 * words (the tool's, the program's, the row's) instead of crashing.
 *
 * A schema is read synchronously (a call's input before anything is sent, a
 * tool call's before it is shown, asked or run, a reply's answer as it is
 * read). zod's `safeParse` throws on the promise an async refinement returns
 * and drops it: a refinement whose lookup failed then rejected with nobody
 * to handle it, which ends a Node process. Here a schema holding an `async`
 * function is refused before any of it runs, one that goes async as it runs
 * has that promise kept and its end handled, and the read throws, saying
 * the schema is async.
 */
import { z } from "zod";
import { defOf, WRAPPERS } from "./tools/json-shape.js";

/** What a schema made of a value: `safeParse`'s result, or what it threw. */
export type SchemaRead<S extends z.ZodType> = ReturnType<S["safeParse"]> | { thrown: unknown };

/**
 * @example
 * const read = readWith(z.number(), "4");
 * if ("thrown" in read) ...; else if (!read.success) issuesText(read.error, "input"); // "input: Invalid input: expected number, received string"
 */
export function readWith<S extends z.ZodType>(schema: S, value: unknown): SchemaRead<S> {
  try {
    if (declaredAsync(schema)) throw new Error(ASYNC_SCHEMA);
    return readNow(schema, unshadowed(schema, value, new WeakMap())) as ReturnType<S["safeParse"]>;
  } catch (e) {
    return { thrown: e };
  }
}

/** A plain object (`{ … }`, as JSON.parse makes them) or one without a prototype: what an object schema is read from here. */
const isRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * The own keys of `value` among `keys` whose value `inner` gives otherwise, with what it gives. Only data
 * properties are looked into: a getter is left for zod to read, once, as it would have been.
 */
function movedIn(
  value: object,
  keys: readonly string[],
  schemaAt: (key: string) => unknown,
  inner: (node: unknown, v: unknown) => unknown,
): [string, unknown][] {
  const moved: [string, unknown][] = [];
  for (const key of keys) {
    const own = Object.getOwnPropertyDescriptor(value, key);
    if (own === undefined || !("value" in own)) continue;
    const read = inner(schemaAt(key), own.value);
    if (read !== own.value) moved.push([key, read]);
  }
  return moved;
}

/**
 * A copy of `value`'s own properties (getters as getters) on `proto`, with the `moved` ones given their new value
 * (set among the descriptors: a frozen value's are not writable, and could not be set on the copy after).
 */
function copyOf(value: object, proto: object | null, moved: readonly [string, unknown][]): object {
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(value);
  for (const [key, v] of moved) descriptors[key] = { value: v, enumerable: true, writable: true, configurable: true };
  return Object.create(proto, descriptors) as object;
}

/**
 * `value` as the schema is to read it: each plain object that an object
 * schema reads keys of, at any depth (`{ race: { constructor? } }`, an
 * array's items, a record's values, a union's options), and that leaves out
 * a key it only inherits (`valueOf`, `toString`, `constructor`: names like
 * any other), given as a copy without a prototype. zod reads a key with
 * `value[key]`, which found Object.prototype's function: an optional key
 * left out was refused as "received function" (the model, told it sent a
 * function, could only ever write it), and its default never applied. An
 * object schema makes a new object of what it reads, so the copy is never
 * what the read gives back; anything else (a class instance, a value a
 * schema passes through) is read as it is. The same value when nothing is
 * inherited. Throws what reading the value throws, as zod would.
 */
function unshadowed(schema: unknown, value: unknown, seen: WeakMap<object, Map<unknown, unknown>>): unknown {
  if (defOf(schema) === undefined || typeof value !== "object" || value === null) return value;
  // what a value read by a schema became, so that one met again (an item given twice) is read alike; while it is
  // being looked at, itself (a cycle, or a recursive schema at the same value, ends there)
  const read = seen.get(value) ?? new Map<unknown, unknown>();
  seen.set(value, read);
  if (read.has(schema)) return read.get(schema);
  read.set(schema, value);
  const made = unshadowedNow(schema, value, seen);
  read.set(schema, made);
  return made;
}

function unshadowedNow(schema: unknown, value: object, seen: WeakMap<object, Map<unknown, unknown>>): unknown {
  const def = defOf(schema)!;
  const inner = (node: unknown, v: unknown): unknown => unshadowed(node, v, seen);
  switch (def.type) {
    case "object": {
      if (!isRecord(value)) return value;
      const shape = (def.shape ?? {}) as Record<string, unknown>;
      const keys = Object.keys(shape);
      const inherited = keys.some((k) => k in value && !Object.hasOwn(value, k));
      const moved = movedIn(value, keys, (k) => shape[k], inner);
      return inherited || moved.length > 0 ? copyOf(value, inherited ? null : Object.getPrototypeOf(value), moved) : value;
    }
    case "record": {
      if (!isRecord(value)) return value;
      const moved = movedIn(value, Object.keys(value), () => def.valueType, inner);
      return moved.length > 0 ? copyOf(value, Object.getPrototypeOf(value), moved) : value;
    }
    case "array":
    case "tuple": {
      if (!Array.isArray(value)) return value;
      const items = (def.items as unknown[] | undefined) ?? [];
      const read = value.map((item: unknown, i) => inner(def.type === "array" ? def.element : i < items.length ? items[i] : def.rest, item));
      return read.some((item, i) => item !== value[i]) ? read : value;
    }
    case "union":
      return ((def.options as unknown[] | undefined) ?? []).reduce((v, option) => inner(option, v), value);
    case "intersection":
      return inner(def.right, inner(def.left, value));
    case "pipe":
      return inner(def.in, value);
    case "lazy":
      return inner((schema as { _zod: { innerType?: unknown } })._zod.innerType, value);
    default:
      return WRAPPERS.has(def.type ?? "") ? inner(def.innerType, value) : value;
  }
}

/**
 * Whether a schema holds an `async` function anywhere (a transform, a
 * preprocess, a refinement), found without running any of it. Running it
 * to find out would start what it does (a lookup) for a read that is then
 * refused, and a promise started beside a check that throws cannot be
 * reached to handle its end. A function that is not `async` but returns a
 * promise is found only by running it (`readNow`). Remembered per schema:
 * zod schemas are immutable.
 */
function declaredAsync(schema: z.ZodType): boolean {
  let known = asyncSchemas.get(schema);
  if (known === undefined) asyncSchemas.set(schema, (known = holdsAsync(schema, new Set())));
  return known;
}

const asyncSchemas = new WeakMap<object, boolean>();

const isAsyncFunction = (v: unknown): boolean =>
  typeof v === "function" && (v as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "AsyncFunction";

/** Walks a schema's definition (and its checks'): every schema it names, in arrays, shapes, a lazy schema's target. */
function holdsAsync(node: unknown, seen: Set<unknown>): boolean {
  const internals = (node as { _zod?: { def?: Record<string, unknown>; innerType?: unknown } } | null)?._zod;
  if (internals?.def === undefined || seen.has(node)) return false;
  seen.add(node);
  const def = internals.def;
  if (isAsyncFunction(def.fn) || isAsyncFunction(def.transform)) return true;
  const named: unknown[] = def.type === "lazy" ? [internals.innerType] : [];
  for (const v of Object.values(def)) {
    if (Array.isArray(v)) named.push(...v);
    else if (v !== null && typeof v === "object" && !("_zod" in v) && Object.getPrototypeOf(v) === Object.prototype) named.push(...Object.values(v));
    else named.push(v);
  }
  return named.some((n) => holdsAsync(n, seen));
}

/** Why a schema could not be read: a check it makes waits (a promise). */
export const ASYNC_SCHEMA =
  "the schema is async (an async refinement or transform), and functai reads inputs and outputs synchronously, before anything is sent or run: make its checks synchronous, and do what needs waiting in the body (a tool's, a program's)";

/**
 * `schema.safeParse(value)`, run as `safeParse` runs it (the schema's
 * `_zod.run`, typed by zod/v4/core) with a context that is neither sync,
 * where zod throws on a check's promise and drops it, nor async, where
 * every transform gives a promise: a check that goes async makes the
 * result a promise, whose end is handled here. Throws what the schema
 * throws, and `ASYNC_SCHEMA` for an async one.
 */
function readNow(schema: z.ZodType, value: unknown): z.ZodSafeParseResult<unknown> {
  const internals = (schema as Partial<z.ZodType>)._zod;
  if (typeof internals?.run !== "function") return schema.safeParse(value); // (not a zod 4 schema as this knows them)
  const ctx: z.core.ParseContextInternal<z.core.$ZodIssue> = {};
  let result: z.core.ParsePayload | Promise<z.core.ParsePayload>;
  try {
    result = internals.run({ value, issues: [] }, ctx);
  } catch (e) {
    if (e instanceof z.core.$ZodAsyncError) throw new Error(ASYNC_SCHEMA, { cause: e });
    throw e;
  }
  if (result instanceof Promise) {
    result.catch(() => undefined); // (its end is of no use: the read is refused)
    throw new Error(ASYNC_SCHEMA);
  }
  if (result.issues.length === 0) return { success: true, data: result.value };
  return { success: false, error: new z.ZodRealError(result.issues.map((i) => z.core.util.finalizeIssue(i, ctx, z.core.config()))) };
}

/** A schema's issues in one line, each at its path (`root` for the value itself): `order.id: Required; amount: Too small`. */
export const issuesText = (error: z.ZodError, root: string): string =>
  error.issues.map((i) => `${i.path.map(String).join(".") || root}: ${i.message}`).join("; ");
