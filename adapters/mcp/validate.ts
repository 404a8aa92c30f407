import { z } from "zod";
import { FunctaiError, describeError, describeValue } from "../../src/errors.js";
import type { InputShape } from "../../src/tools/types.js";

/** Compiles a JSON Schema into a check: `null` when the value fits, else what is wrong. */
export type JsonCheck = (value: unknown) => string | null;
export type CheckMaker = (schema: Record<string, unknown>) => JsonCheck;

/**
 * A module of an optional peer dependency, loaded when first needed (`load`
 * imports it): without it this is `package-missing`, saying what to install
 * (`install`, the npm install line).
 */
async function fromPeer<T>(install: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new FunctaiError("package-missing", `functai/mcp needs the package ${install} (npm install ${install}): ${describeError(e)}`, {
      cause: e,
    });
  }
}

/** A module of the MCP SDK, an optional peer dependency of functai (see {@link fromPeer}). */
export const fromSdk = <T>(load: () => Promise<T>): Promise<T> => fromPeer("@modelcontextprotocol/sdk", load);

/** The parts of an Ajv instance (of any dialect's class) a check uses. */
interface AjvLike {
  compile(schema: object): { (value: unknown): boolean; errors?: unknown };
  errorsText(errors: unknown): string;
}
type AjvClass = new (options: object) => AjvLike;

/**
 * A CommonJS module's class as `import()` gives it: Node hands back
 * `module.exports` as `default` (the class itself), a bundler may hand back
 * the module with the class as its `default`.
 */
const classOf = <T>(mod: { default: unknown }): T => {
  const value = mod.default as { default?: unknown };
  return (typeof value === "function" ? value : value.default) as T;
};

/**
 * The JSON Schema dialects a tool's schema is checked in, by the `$schema`
 * that names them (`http` or `https`, with or without the closing `#`).
 * MCP reads a schema that names none as 2020-12. Draft-06 is checked as
 * draft-07, which only adds to it.
 */
const DIALECTS = {
  "json-schema.org/draft/2020-12/schema": "2020-12",
  "json-schema.org/draft/2019-09/schema": "2019-09",
  "json-schema.org/draft-07/schema": "draft-07",
  "json-schema.org/draft-06/schema": "draft-07",
} as const;
type Dialect = (typeof DIALECTS)[keyof typeof DIALECTS];

/**
 * The dialect a schema's `$schema` names, `undefined` when it names none.
 * Any other `$schema` (draft-04, or a dialect of one's own) is refused, not
 * checked as another dialect: the same keywords say other things in each
 * (draft-04's `exclusiveMaximum: true`, draft-07's `items: [ … ]`).
 */
function dialectOf(schema: Record<string, unknown>): Dialect | undefined {
  const named = schema.$schema;
  if (named === undefined) return undefined;
  const key = typeof named === "string" ? named.replace(/^https?:\/\//, "").replace(/#$/, "") : "";
  if (Object.hasOwn(DIALECTS, key)) return DIALECTS[key as keyof typeof DIALECTS];
  throw new Error(
    `its $schema ${describeValue(named, 80)} names a JSON Schema dialect functai does not check (it checks 2020-12, MCP's default, 2019-09, draft-07 and draft-06)`,
  );
}

/**
 * A JSON Schema check maker, Ajv's (as the MCP SDK's client uses, with the
 * same options), loaded when first needed: `ajv` and `ajv-formats` are
 * optional peer dependencies of functai, as the SDK is (they come with it,
 * but a package manager need not put them where functai can load them).
 * Each schema is checked in its dialect (see {@link dialectOf}), 2020-12
 * when it names none (MCP's default), or draft-07 when only draft-07 can
 * read it (a list of `items`, which 2020-12 has no word for): the SDK's
 * own validator is Ajv's draft-07 class, which does not know 2020-12's
 * `prefixItems`, `dependentRequired` or `unevaluatedProperties` and let
 * through what they refuse.
 *
 * A schema with an `$id` is compiled by an Ajv of its own: Ajv refuses a
 * second schema of an `$id` it has compiled, and the SDK's validator handed
 * back the first one's check for it, so two tools whose schemas share one
 * (a generator's fixed `$id`) were both checked against the first one's.
 */
export async function loadCheckMaker(): Promise<CheckMaker> {
  const install = "ajv ajv-formats";
  const [draft07, draft2019, draft2020, formats] = await Promise.all([
    fromPeer(install, () => import("ajv")),
    fromPeer(install, () => import("ajv/dist/2019.js")),
    fromPeer(install, () => import("ajv/dist/2020.js")),
    fromPeer(install, () => import("ajv-formats")),
  ]);
  const classes: Record<Dialect, AjvClass> = {
    "draft-07": classOf(draft07),
    "2019-09": classOf(draft2019),
    "2020-12": classOf(draft2020),
  };
  const addFormats = classOf<(ajv: AjvLike) => void>(formats);
  const make = (dialect: Dialect): AjvLike => {
    const ajv = new classes[dialect]({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    addFormats(ajv);
    return ajv;
  };
  const shared = new Map<Dialect, AjvLike>();
  const compiled = (schema: Record<string, unknown>, dialect: Dialect): JsonCheck => {
    let ajv = shared.get(dialect);
    if (ajv === undefined || typeof schema.$id === "string") ajv = make(dialect);
    if (typeof schema.$id !== "string") shared.set(dialect, ajv);
    const check = ajv.compile(schema);
    return (value) => (check(value) ? null : (ajv as AjvLike).errorsText(check.errors));
  };
  return (schema) => {
    const dialect = dialectOf(schema);
    if (dialect !== undefined) return compiled(schema, dialect);
    // no $schema: 2020-12, as MCP says; one that 2020-12 cannot read and draft-07 can (a list of `items`, as
    // servers wrote before MCP named a default) is draft-07's, not a tool to refuse
    try {
      return compiled(schema, "2020-12");
    } catch (e) {
      try {
        return compiled(schema, "draft-07");
      } catch {
        throw e;
      }
    }
  };
}

/**
 * A zod object that takes any object the JSON Schema takes, and nothing else:
 * the engine checks a tool's input with zod, and the model is shown the
 * schema itself (the tool's `parameters`).
 */
export function inputSchemaFrom(check: JsonCheck): z.ZodObject<InputShape> {
  return z.looseObject({}).superRefine((value, ctx) => {
    const problem = check(value);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });
}
