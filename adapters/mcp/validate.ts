import { z } from "zod";
import { FunctaiError, describeError } from "../../src/errors.js";
import type { InputShape } from "../../src/tools/types.js";

/** Compiles a JSON Schema into a check: `null` when the value fits, else what is wrong. */
export type JsonCheck = (value: unknown) => string | null;
export type CheckMaker = (schema: Record<string, unknown>) => JsonCheck;

/**
 * A module of the MCP SDK, loaded when first needed (`load` imports it): the
 * SDK is an optional peer dependency of functai, and without it this is
 * `package-missing`, saying what to install.
 */
export async function fromSdk<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new FunctaiError(
      "package-missing",
      `functai/mcp needs the package @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk): ${describeError(e)}`,
      { cause: e },
    );
  }
}

/**
 * The MCP SDK's own JSON Schema validator (Ajv, as its client uses for
 * tools' output schemas), loaded when first needed: the SDK is an optional
 * peer dependency of functai.
 *
 * A schema with an `$id` is compiled by a validator of its own: the SDK's
 * keeps each schema it compiled by its `$id` and hands it back for any later
 * schema of that `$id`, so two tools whose schemas share one (a generator's
 * fixed `$id`) were both checked against the first one's.
 */
export async function loadCheckMaker(): Promise<CheckMaker> {
  const mod = await fromSdk(() => import("@modelcontextprotocol/sdk/validation/ajv"));
  const shared = new mod.AjvJsonSchemaValidator();
  return (schema) => {
    const validator = typeof schema.$id === "string" ? new mod.AjvJsonSchemaValidator() : shared;
    const check = validator.getValidator(schema as never);
    return (value) => {
      const result = check(value);
      return result.valid ? null : result.errorMessage;
    };
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
