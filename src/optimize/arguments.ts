import { describeValue, FunctaiError } from "../errors.js";
import { isLanguageModel, type LanguageModel } from "../lm/types.js";
import { resolveLM } from "../providers/resolve.js";

/**
 * Checks the optimizers' first argument is an AI function: they give "a new
 * AI function" with examples, and only an AI function has examples and a
 * state. A program was run on every row (paid for) and then threw a bare
 * TypeError (`fn.state is not a function`).
 */
export function checkOptimizable(fn: unknown, by: string): void {
  const f = fn as { definition?: { name?: unknown; kind?: unknown }; state?: unknown; withState?: unknown } | null | undefined;
  if ((typeof f === "function" || (typeof f === "object" && f !== null)) && typeof f.state === "function" && typeof f.withState === "function")
    return;
  const what =
    f?.definition?.kind === "program"
      ? `${String(f.definition.name)} is a program, which has no examples`
      : `not ${typeof fn === "function" ? "a plain function" : describeValue(fn, 60)}`;
  throw new FunctaiError(
    "input-invalid",
    `${by} takes an AI function (ai(...)), whose requests show the examples; ${what}. Nothing was sent to the model.`,
  );
}

/**
 * The teacher model, checked before any run: a misspelt name or a value that
 * is no model failed every run (`lm-unknown`), each row quietly, and
 * bootstrapFewShot gave labeled rows only, as if no run had passed. A name is
 * resolved as a call would resolve it (a known one is only built, not called).
 */
export function checkTeacher(teacher: unknown): LanguageModel | string | undefined {
  if (teacher === undefined || isLanguageModel(teacher)) return teacher;
  if (typeof teacher !== "string")
    throw new FunctaiError("input-invalid", `teacher is a model name ("gpt-4.1") or a language model, not ${describeValue(teacher, 80)}`);
  try {
    resolveLM(teacher);
  } catch (e) {
    if (e instanceof FunctaiError) throw new FunctaiError(e.code, `teacher: ${e.message}`, { cause: e });
    throw e;
  }
  return teacher;
}
