import { z } from "zod";
import { frameCarrier } from "../engine/carrier.js";
import type { EarlierTurn } from "../engine/ai-call.js";
import { announceStart, type Frame } from "../engine/frame.js";
import { FunctaiError, describeError } from "../errors.js";
import { observeTurn } from "../plugins/hooks.js";
import type { Effects } from "../records/types.js";
import { checkSettings, pickSettings, SETTING_KEYS, type Settings } from "../settings.js";
import { checkEffects, checkName, checkRun, checkSpec, inputShapeOf } from "../tools/tool.js";
import type { InputShape } from "../tools/types.js";
import { makeCallable, type Callable } from "./callable.js";
import { shapeOf, type Definition } from "./definition.js";
import { issuesText, readWith } from "../schema-read.js";

/**
 * What `program(name, spec, body)` takes: a description, the input shape, the
 * output schema, its effects as a tool, and any setting.
 *
 * @example
 * const spec: ProgramSpec<{ message: z.ZodString }, z.ZodString> = {
 *   description: "Route a message to the right desk.",
 *   input: { message: z.string() },
 *   effects: "reads",
 * };
 * const route = program("route", spec, ({ message }) => answer(message));
 */
export interface ProgramSpec<S extends InputShape, O extends z.ZodType> extends Settings {
  description: string;
  input: S;
  output?: O;
  /** As a tool it changes things unless it says `"reads"`. */
  effects?: Effects;
}

/** What a `program` spec holds: its signature, its effects as a tool and any setting. */
const PROGRAM_SPEC_KEYS: readonly string[] = ["description", "input", "output", "effects", ...SETTING_KEYS];

/**
 * What a program's body is told. Pass it as `{ ctx }` to calls made after an `await` in browsers.
 *
 * @example
 * const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }, ctx: ProgramContext) => {
 *   const topic = await classify(message, { ctx });
 *   return answer(`${message} (about ${topic})`, { ctx, signal: ctx.signal }); // after an await: pass ctx in browsers
 * });
 */
export interface ProgramContext {
  readonly frame: Frame;
  readonly path: string;
  readonly site: string;
  readonly signal: AbortSignal;
  /** Earlier done turns of this conversation's branch (empty outside conversations). */
  readonly history: readonly EarlierTurn[];
}

/**
 * A program (`program(...)`): plain code whose calls to AI functions and tools are journaled as one turn.
 *
 * @example
 * const support: Program<{ message: z.ZodString }> = program("support", { description: "Route.", input: { message: z.string() } }, ({ message }) => answer(message));
 */
export type Program<S extends InputShape, O extends z.ZodType = z.ZodString> = Callable<S, z.output<O>>;

/**
 * Your own code around AI functions: journaled and resumable at any depth.
 * On resume it runs again with the same inputs; the calls it makes find
 * their recorded replies and tool results, so it should be deterministic
 * given them.
 *
 * The body returns what the output schema takes (`z.input`), and the call
 * gives what the schema makes of it (`z.output`), as an AI function's model
 * writes its reply: the value is read by `output` once, so a body that
 * returned the schema's output (a transform's result) would be refused
 * (`output-invalid`) however well it type-checked.
 *
 * @example
 * const support = program("support", { description: "Route and answer.", input: { message: z.string() } },
 *   async ({ message }) => answer(message));
 */
export function program<S extends InputShape, O extends z.ZodType = z.ZodString>(
  name: string,
  spec: ProgramSpec<S, O>,
  run: (input: z.output<z.ZodObject<S>>, ctx: ProgramContext) => Promise<z.input<O>> | z.input<O>,
): Program<S, O> {
  checkName("program", name);
  checkSpec(`program ${name}`, spec, { description: "optional", keys: PROGRAM_SPEC_KEYS });
  checkRun(`program ${name}`, run);
  const effects = checkEffects(spec.effects, `program ${name}`);
  const output = (spec.output ?? z.string()) as z.ZodType;
  const input = inputShapeOf<S>(`program ${name}`, spec);
  const description = spec.description;
  const def: Definition = {
    kind: "program",
    name,
    description: description ?? "",
    inputSchema: z.object(input),
    output,
    settings: checkSettings(pickSettings(spec)),
    toolEffects: effects ?? null,
    execute: (frame, input, history) =>
      observeTurn(frame, input, async () => {
        announceStart(frame, input);
        const ctx: ProgramContext = { frame, path: frame.path, site: frame.site, signal: frame.runtime.signal, history };
        const value = await frameCarrier.run(frame, () => run(input as z.output<z.ZodObject<S>>, ctx));
        const checked = readWith(output, value);
        if ("thrown" in checked)
          throw new FunctaiError(
            "output-invalid",
            `program ${name}: its output schema threw while checking the value it returned: ${describeError(checked.thrown)}`,
            {
              cause: checked.thrown,
            },
          );
        if (!checked.success)
          throw new FunctaiError(
            "output-invalid",
            // every issue at its place (`items.0.id: …`): the first alone, without where, left a nested output's slip to be hunted for
            `program ${name} returned a value that is not its output: ${issuesText(checked.error, "output")}`,
          );
        return checked.data;
      }),
    describe: () => ({
      description,
      inputs: Object.entries(input).map(([key, type]) => ({ name: key, shape: shapeOf(type as z.ZodType) })),
      outputs: [{ name: "result", shape: shapeOf(output) }],
      effects: effects ?? null,
    }),
  };
  return makeCallable<S, z.output<O>>(def);
}
