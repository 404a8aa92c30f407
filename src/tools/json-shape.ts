/**
 * What a model can write. A model writes JSON: a tool call's input (a tool's,
 * or an AI function's or program's used as a tool) and an AI function's
 * answer. A zod type that no JSON value parses into (a `z.date()`, a
 * `z.map()`, a `z.bigint()`) is shown to the model as `{}` (JSON Schema has
 * no word for it), and whatever the model writes is refused: every call of
 * the tool failed, or every answer was `output-invalid`, with nothing said
 * when the function was defined. `unwritable` finds such a type, where it
 * sits, so a definition can be refused naming it and saying what to use; and
 * `z.coerce.boolean()`, which JSON parses into but misreads (the text
 * "false" is true).
 *
 * The schema is walked as a value is parsed from JSON: its input side (a
 * transform's or a pipe's input, never its output). `z.coerce.date()` reads
 * a JSON date-time text into a Date, so it is writable, and is shown to the
 * model as a date-time text (`jsonSchemaOf`).
 */
import { z } from "zod";

/** A place in a schema no JSON value parses into: its path (`order.placed_at`, `items[]`) and what to do instead. */
export interface Unwritable {
  path: string;
  what: string;
  instead: string;
  /** Why it cannot be used, when the model's JSON parses into it, but not as written (`unwritableText` says the rest). */
  why?: string;
}

type Def = Record<string, unknown> & { type?: string };

/** zod's schema types that wrap one other (`innerType`) and read a value as it does (what they add aside). */
export const WRAPPERS: ReadonlySet<string> = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional", "success"]);

/** A zod type's definition (`type`, and what it holds), or undefined for anything that is not one. */
export const defOf = (node: unknown): Def | undefined => (node as { _zod?: { def?: Def } } | null | undefined)?._zod?.def;

/** What to write instead, by the zod type that JSON cannot carry. */
const INSTEAD: Record<string, { what: string; instead: string }> = {
  date: { what: "z.date()", instead: "z.iso.datetime() (the date as text), or z.coerce.date() for a Date in a tool's body" },
  map: { what: "z.map()", instead: "z.record(z.string(), …), or an array of [key, value] pairs" },
  set: { what: "z.set()", instead: "z.array(…)" },
  bigint: { what: "z.bigint()", instead: "z.int() (a whole number), or z.string() for digits past 2^53" },
  symbol: { what: "z.symbol()", instead: "z.string() or z.enum([…])" },
  function: { what: "z.function()", instead: "a JSON type: a model can only write JSON" },
  promise: { what: "z.promise()", instead: "the type it holds: a model writes the value, never a promise" },
  undefined: { what: "z.undefined()", instead: "leave the key out of the shape, or make it .optional()" },
  void: { what: "z.void()", instead: "leave the key out of the shape, or make it .optional()" },
  nan: { what: "z.nan()", instead: "z.number() or z.null()" },
  custom: { what: "z.custom() / z.instanceof()", instead: "a JSON type (z.string(), z.object({ … }), …)" },
  file: { what: "z.file()", instead: "z.string() (a path, a URL or base64 text)" },
  transform: { what: "a bare z.transform()", instead: "a type the model can write, piped into the transform (z.string().transform(…))" },
};

/**
 * The first place in `schema` that no JSON value parses into, or undefined
 * when every place is writable. `root` names the schema itself (`input`, or
 * `result`). `forAnswer` says the value is an AI function's answer (a date
 * there is written as text: `z.coerce.date()` is shown to the model as
 * nothing the reply form can say, so it is refused too).
 *
 * A `z.lazy` is looked into only with `lazy` (at a request, when the tool is
 * offered): its getter may name a schema defined after the definition, and
 * zod keeps what a first call of it gave, so a call while that name is not
 * yet defined would leave the schema without its type for good. Throws what
 * a getter throws.
 */
export function unwritable(schema: unknown, root: string, options: { forAnswer?: boolean; lazy?: boolean } = {}): Unwritable | undefined {
  return walk(schema, root, new Set(), options.forAnswer === true, options.lazy === true);
}

const join = (path: string, key: string | number): string =>
  typeof key === "number"
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? path === ""
        ? key
        : `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;

function walk(node: unknown, path: string, seen: Set<unknown>, forAnswer: boolean, lazy: boolean): Unwritable | undefined {
  const def = defOf(node);
  if (def === undefined || seen.has(node)) return undefined;
  seen.add(node);
  const here = (type: string): Unwritable => {
    const known = INSTEAD[type]!;
    const instead =
      type === "date" && forAnswer
        ? "z.iso.datetime() (the date as text), or z.iso.datetime().transform((s) => new Date(s)) for a Date"
        : known.instead;
    return { path, what: type === "date" && def.coerce === true ? "z.coerce.date()" : known.what, instead };
  };
  const first = (items: readonly (readonly [unknown, string])[]): Unwritable | undefined => {
    for (const [item, at] of items) {
      const found = walk(item, at, seen, forAnswer, lazy);
      if (found) return found;
    }
    return undefined;
  };
  switch (def.type) {
    case "date":
      // a coerced date reads a date-time text (its JSON): the model is shown that (a tool's input); an answer's reply
      // form shows the model nothing it could write for it
      return def.coerce === true && !forAnswer ? undefined : here("date");
    case "bigint":
      // a coerced one reads the digits (or the number) the model writes: an answer is the BigInt. A tool's input is
      // journaled, shown to a person and streamed, and a BigInt has no JSON: accepted here, it was shown to the model
      // as {} and every call the model paid for failed (tool-failed), the tool never able to run; refused here instead
      if (def.coerce === true && forAnswer) return undefined;
      if (def.coerce === true)
        return { path, what: "z.coerce.bigint()", instead: "z.string() (the digits) or z.int(), converted with BigInt(…) in the tool's body" };
      // z.int64() and z.uint64() are bigints too: named as written, not as z.bigint()
      return typeof def.format === "string" ? { ...here("bigint"), what: `z.${def.format}()` } : here("bigint");
    case "boolean":
      // a coerced one reads any text but "" as true: a model that wrote "false" (or "no", or a bare False as its
      // answer) had it read as true, where the model was shown a boolean
      return def.coerce === true
        ? {
            path,
            what: "z.coerce.boolean()",
            instead: 'z.boolean(), or z.stringbool() to read text such as "yes" or "false"',
            why: 'which reads any text but "" as true: a model that writes "false" or "no" would be read as saying true',
          }
        : undefined;
    case "map":
    case "set":
    case "symbol":
    case "function":
    case "promise":
    case "undefined":
    case "void":
    case "nan":
    case "custom":
    case "file":
    case "transform":
      return here(def.type);
    case "literal": {
      const values = (def.values as unknown[] | undefined) ?? [];
      const odd = values.find((v) => typeof v === "bigint" || v === undefined);
      return odd === undefined
        ? undefined
        : {
            path,
            what: `z.literal(${typeof odd === "bigint" ? `${odd}n` : "undefined"})`,
            instead: "a literal JSON can hold (text, a number, true, false or null)",
          };
    }
    case "object": {
      const shape = (def.shape ?? {}) as Record<string, unknown>;
      return first([
        ...Object.entries(shape).map(([key, type]) => [type, join(path, key)] as const),
        ...(def.catchall === undefined ? [] : [[def.catchall, `${path}.*`] as const]),
      ]);
    }
    case "array":
      return walk(def.element, `${path}[]`, seen, forAnswer, lazy);
    case "tuple":
      return first([
        ...((def.items as unknown[] | undefined) ?? []).map((item, i) => [item, join(path, i)] as const),
        ...(def.rest === undefined || def.rest === null ? [] : [[def.rest, `${path}[]`] as const]),
      ]);
    case "record":
      // a key is JSON text: a z.symbol() key type takes none, and every object the model writes would be refused
      return first([
        [def.keyType, `${path} (its keys)`],
        [def.valueType, `${path}.*`],
      ]);
    case "union":
      return first(((def.options as unknown[] | undefined) ?? []).map((option) => [option, path] as const));
    case "intersection":
      return first([
        [def.left, path],
        [def.right, path],
      ]);
    case "pipe": {
      // what is parsed is the pipe's input; z.preprocess (a transform first) is read by what it feeds
      const into = defOf(def.in)?.type === "transform" ? def.out : def.in;
      return walk(into, path, seen, forAnswer, lazy);
    }
    case "lazy":
      if (!lazy) return undefined;
      return walk((node as { _zod: { innerType?: unknown } })._zod.innerType, path, seen, forAnswer, lazy);
    default:
      return WRAPPERS.has(def.type ?? "") ? walk(def.innerType, path, seen, forAnswer, lazy) : undefined;
  }
}

/** Says what and what to use instead, after where: `(input placed_at) is z.date(), which …`. */
export const unwritableText = (found: Unwritable): string =>
  `is ${found.what}, ${found.why ?? "which no JSON value the model writes can parse into (it would be shown to the model as {}, and every value refused)"}; use ${found.instead}`;

/**
 * A tool input's JSON Schema, as zod writes it (its input side, anything
 * JSON Schema has no word for written as `{}`), with each `z.coerce.date()`
 * shown as the date-time text it reads. The top level is written without
 * `additionalProperties`, as it was before keys that are no input were
 * refused (tools/tool.ts modelInputSchema): the same tools make the same
 * requests, so a journal's recorded replies are still found.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = writeSchema(schema);
  if (refusingExtraKeys.has(schema) && json.additionalProperties === false) delete json.additionalProperties;
  return json;
}

/** Input schemas made to refuse keys that are no input (modelInputSchema), as opposed to a hand-made tool's own strict object. */
export const refusingExtraKeys = new WeakSet<object>();

function writeSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      const def = defOf(ctx.zodSchema);
      if (def?.type === "date" && def.coerce === true) {
        const json = ctx.jsonSchema as Record<string, unknown>;
        json.type = "string";
        json.format = "date-time";
      }
    },
  }) as Record<string, unknown>;
}
