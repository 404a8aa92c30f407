import { z } from "zod";
import { runAICall, type AIShape } from "../engine/ai-call.js";
import { announceStart } from "../engine/frame.js";
import { FunctaiError, describeError, describeValue } from "../errors.js";
import { observeTurn } from "../plugins/hooks.js";
import type { Effects } from "../records/types.js";
import { parseState, type AIState, type Demo } from "../optimize/demo.js";
import { shownExamples } from "../optimize/demo-messages.js";
import { systemMessage } from "../lm/prompt.js";
import { checkSettings, pickSettings, SETTING_KEYS, type Settings } from "../settings.js";
import { checkName, checkSpec, inputShapeOf, refuseUnwritable } from "../tools/tool.js";
import type { InputShape, ToolLike } from "../tools/types.js";
import { makeCallable, type Callable } from "./callable.js";
import { shapeOf, type Definition } from "./definition.js";

/**
 * What `ai(name, spec)` takes: a description, the input shape, the output
 * schema (default `z.string()`), the tools, and any setting (`lm`, `approve`, …).
 *
 * @example
 * const spec: AISpec<{ question: z.ZodString }, z.ZodString> = {
 *   description: "Answer the customer's question.",
 *   input: { question: z.string() },
 *   tools: [lookupOrder],
 *   approve: "changes",
 * };
 * const answer = ai("answer", spec);
 */
export interface AISpec<S extends InputShape, O extends z.ZodType> extends Settings {
  description: string;
  input: S;
  /** Default `z.string()`. */
  output?: O;
  tools?: readonly ToolLike[];
}

/**
 * An AI function (`ai(...)`): call it with its input, or `.predict`, `.stream`, `.using`, `.conversation`;
 * it has worked examples (`demos`) and a state that can be saved and loaded.
 *
 * @example
 * const answer: AIFunction<{ question: z.ZodString }> = ai("answer", { description: "Answer.", input: { question: z.string() } });
 */
export type AIFunction<S extends InputShape, O extends z.ZodType = z.ZodString> = Optimizable<S, O> & Callable<S, z.output<O>>;

/**
 * What an AI function has beyond a callable (first in `AIFunction`, so its `using` is the one a call picks).
 *
 * @example
 * const saved = JSON.stringify(answer.state());
 * const restored = answer.withState(JSON.parse(saved));
 * restored.demos.length; // the worked examples it was saved with
 */
export interface Optimizable<S extends InputShape, O extends z.ZodType> {
  /** The worked examples shown before the live input (from `labeledFewShot`, `bootstrapFewShot` or `withState`). */
  readonly demos: readonly Demo[];
  /** The instructions and examples, as JSON: `withState` loads them into a function of the same signature. */
  state(): AIState;
  /** The same function with these instructions and examples; the original is unchanged. */
  withState(state: AIState): AIFunction<S, O>;
  /** The same function with these settings nearer than its own. */
  using(settings: Settings): AIFunction<S, O>;
}

/** What an `ai` spec holds: its signature, its tools and any setting. */
const AI_SPEC_KEYS: readonly string[] = ["description", "input", "output", "tools", ...SETTING_KEYS];

/** An AI function used as a tool reads, unless one of its own tools changes things or says nothing. */
function effectsAsTool(tools: readonly ToolLike[]): Effects {
  return tools.every((t) => t.toolEffects === "reads") ? "reads" : "changes";
}

/** Whether a value can be offered to a model: what tool(), ai(), program(), delegate() and mcpTools() make. */
const isToolLike = (t: unknown): t is ToolLike =>
  ((typeof t === "object" && t !== null) || typeof t === "function") &&
  typeof (t as ToolLike).name === "string" &&
  typeof (t as ToolLike).runAsTool === "function" &&
  typeof (t as ToolLike).inputSchema?.safeParse === "function";

/**
 * `tools[i]` as a tool, else refused; read where a throw can be told: a getter of it (or of what it holds) that
 * throws is the definition's mistake, said so, never the raw error from inside `ai()`.
 */
function listedTool(name: string, tools: readonly unknown[], i: number): ToolLike {
  let t: unknown;
  let tool: boolean;
  try {
    t = tools[i];
    tool = isToolLike(t);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `${name}: tools[${i}] could not be read: ${describeError(e)}`, { cause: e });
  }
  if (!tool)
    throw new FunctaiError(
      "settings-invalid",
      `${name}: tools[${i}] is not a tool (make one with tool(), ai(), program() or delegate()): ${describeValue(t, 80)}`,
    );
  return t as ToolLike;
}

/** The tools as a list of tools whose names a provider accepts (a string spread letter by letter, or a null, failed later and obscurely). */
function checkTools(name: string, tools: unknown): ToolLike[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw new FunctaiError("settings-invalid", `${name}: tools must be a list of tools, not ${describeValue(tools, 80)}`);
  const list: ToolLike[] = [];
  for (let i = 0; i < tools.length; i++) {
    const t = listedTool(name, tools, i);
    checkName("tool", t.name);
    // the model writes its input: an AI function's or a program's (whose callers may give a Date in code) as much as a
    // tool's. One it shows as {} (JSON Schema has no word for it) refuses whatever the model writes, at every call
    if (t.parameters === undefined) refuseUnwritable(`${name}: tool ${t.name}`, t.inputSchema, "its input");
    // what rules and records read: anything else was counted as "changes" by rules and refused when its record was written, mid-turn
    if (t.toolEffects !== null && t.toolEffects !== "reads" && t.toolEffects !== "changes")
      throw new FunctaiError(
        "settings-invalid",
        `${name}: tool ${t.name} has effects ${describeValue(t.toolEffects, 80)}; a tool's effects are "reads", "changes" or null (it did not say)`,
      );
    list.push(t);
  }
  return list;
}

/**
 * The answer's JSON Schema, written as the system message shows it, before
 * any model call: writing it runs the schema's own code (a default's
 * function) and writes JSON (a `.meta()` holding a BigInt, a cyclic default
 * cannot be). What that throws is the function's mistake, refused
 * (`settings-invalid`, naming it), never zod's or JSON's raw error without a
 * code. (At the first call, not in `ai()`: a `z.lazy` may name a schema
 * defined after it. The text is kept by the prompt, so it is written once.)
 */
function writeAnswerSchema(name: string, output: z.ZodType): void {
  try {
    systemMessage(name, "", output);
  } catch (e) {
    throw new FunctaiError(
      "settings-invalid",
      `${name}: its output schema cannot be written as JSON Schema for the model (${describeError(e)}); nothing was sent. Make its defaults (and any .meta()) plain JSON values that can be made without failing.`,
      { cause: e },
    );
  }
}

/**
 * An AI function: a typed signature and a description; a model writes the body.
 *
 * @example
 * const answer = ai("answer", {
 *   description: "Answer the customer's question. Look the order up first.",
 *   input: { question: z.string() },
 *   tools: [lookupOrder],
 * });
 * await answer("Where is my order A-1042?");
 */
export function ai<S extends InputShape, O extends z.ZodType = z.ZodString>(name: string, spec: AISpec<S, O>): AIFunction<S, O> {
  checkName("AI function", name);
  checkSpec(name, spec, { description: "required", keys: AI_SPEC_KEYS });
  const tools = checkTools(name, spec.tools);
  const toolMap = new Map<string, ToolLike>();
  for (const t of tools) {
    if (toolMap.has(t.name)) throw new FunctaiError("settings-invalid", `${name}: two tools are named ${t.name}`);
    toolMap.set(t.name, t);
  }
  const output = (spec.output ?? z.string()) as z.ZodType;
  // the model writes the answer as JSON: a type no JSON parses into (a z.date(), a z.set()) was output-invalid at every call
  refuseUnwritable(name, output, "its output", { forAnswer: true });
  const settings = checkSettings(pickSettings(spec));
  const toolEffects = effectsAsTool(tools);
  const input = inputShapeOf<S>(name, spec);
  const inputSchema = z.object(input);
  // what a z.lazy of the answer holds is looked at at the first call, before any model call (its getter may name a
  // schema defined further down): unlooked at, a z.date() in it was shown to the model as {}, and every reply refused
  let answerWritable = false;
  const checkAnswer = (): void => {
    if (answerWritable) return;
    refuseUnwritable(name, output, "its output", { forAnswer: true, lazy: true });
    writeAnswerSchema(name, output);
    answerWritable = true;
  };

  /**
   * The definition for some instructions and worked examples (the examples are shown, never run). `inputs` are
   * each example's inputs as withState read them (parseState).
   */
  const define = (description: string, demos: readonly Demo[], inputs: readonly Record<string, unknown>[]): Definition => {
    const shape: AIShape = { name, description, output, tools, toolMap };
    // an example's inputs are shown as the live input is, parsed (defaults filled, transforms applied): kept raw,
    // a trimmed or defaulted input looked different in the examples than in the call they teach. Not read again
    // here: a second read need not give the same (a transform that is not pure), and what it threw was not caught
    const examples = shownExamples(demos.map((d, i) => ({ ...d, inputs: inputs[i]! })));
    return {
      kind: "ai",
      name,
      description,
      inputSchema,
      output,
      settings,
      toolEffects,
      demos,
      tools,
      withState: (state) => {
        const loaded = parseState(name, state, { inputSchema, tools });
        return define(loaded.state.instructions, loaded.state.demos, loaded.inputs);
      },
      execute: (frame, input, history) =>
        observeTurn(frame, input, () => {
          try {
            checkAnswer();
          } catch (e) {
            return Promise.reject(e);
          }
          announceStart(frame, input);
          return runAICall(frame, shape, input, examples.length === 0 ? history : [...examples, ...history]);
        }),
      describe: () => ({
        description,
        inputs: Object.entries(input).map(([key, type]) => ({ name: key, shape: shapeOf(type as z.ZodType) })),
        outputs: [{ name: "result", shape: shapeOf(output) }],
        tools: tools.map((t) => ({ name: t.name, effects: t.toolEffects })),
      }),
    };
  };
  return makeCallable<S, z.output<O>>(define(spec.description, [], [])) as AIFunction<S, O>;
}
