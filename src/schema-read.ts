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
    const inherited = inheritedKeys(schema, value);
    if (inherited.length === 0) return readNow(schema, value) as ReturnType<S["safeParse"]>;
    const read = readNow(schema, { ...(value as object), ...Object.fromEntries(inherited.map((k) => [k, undefined])) });
    if (read.success)
      for (const k of inherited) if ((read.data as Record<string, unknown>)[k] === undefined) delete (read.data as Record<string, unknown>)[k];
    return read as ReturnType<S["safeParse"]>;
  } catch (e) {
    return { thrown: e };
  }
}

/**
 * The keys of an object schema that a plain object value leaves out but
 * inherits (`valueOf`, `toString`, `constructor`: input names like any
 * other). zod reads a key with `value[key]`, which finds Object.prototype's
 * function: an optional `valueOf` left out was refused as "received
 * function". The value is read with each of them given as undefined (left
 * out), at its top level (where inputs are named), and a key read as
 * undefined is left out of what it made, as zod leaves out one not given.
 */
function inheritedKeys(schema: z.ZodType, value: unknown): string[] {
  if (!(schema instanceof z.ZodObject) || typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return [];
  return Object.keys(schema.shape).filter((k) => k in value && !Object.hasOwn(value, k));
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
