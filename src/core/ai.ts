import { z } from "zod";
import { runAICall, type AIShape } from "../engine/ai-call.js";
import { announceStart } from "../engine/frame.js";
import { FunctaiError } from "../errors.js";
import { observeTurn } from "../plugins/hooks.js";
import type { Effects } from "../records/types.js";
import { checkSettings, pickSettings, type Settings } from "../settings.js";
import { checkName } from "../tools/tool.js";
import type { InputShape, ToolLike } from "../tools/types.js";
import { makeCallable, type Callable } from "./callable.js";
import { shapeOf, type Definition } from "./definition.js";

export interface AISpec<S extends InputShape, O extends z.ZodType> extends Settings {
  description: string;
  input: S;
  /** Default `z.string()`. */
  output?: O;
  tools?: readonly ToolLike[];
}

export type AIFunction<S extends InputShape, O extends z.ZodType = z.ZodString> = Callable<S, z.output<O>>;

/** An AI function used as a tool reads, unless one of its own tools changes things or says nothing. */
function effectsAsTool(tools: readonly ToolLike[]): Effects {
  return tools.every((t) => t.toolEffects === "reads") ? "reads" : "changes";
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
  if (!spec || typeof spec.description !== "string") throw new FunctaiError("settings-invalid", `${name}: a description is needed`);
  const tools = [...(spec.tools ?? [])];
  const toolMap = new Map<string, ToolLike>();
  for (const t of tools) {
    if (toolMap.has(t.name)) throw new FunctaiError("settings-invalid", `${name}: two tools are named ${t.name}`);
    toolMap.set(t.name, t);
  }
  const output = (spec.output ?? z.string()) as z.ZodType;
  const shape: AIShape = { name, description: spec.description, output, tools, toolMap };
  const def: Definition = {
    kind: "ai",
    name,
    description: spec.description,
    inputSchema: z.object(spec.input),
    output,
    settings: checkSettings(pickSettings(spec)),
    toolEffects: effectsAsTool(tools),
    execute: (frame, input, history) =>
      observeTurn(frame, input, () => {
        announceStart(frame, input);
        return runAICall(frame, shape, input, history);
      }),
    describe: () => ({
      description: spec.description,
      inputs: Object.entries(spec.input).map(([key, type]) => ({ name: key, shape: shapeOf(type as z.ZodType) })),
      outputs: [{ name: "result", shape: shapeOf(output) }],
      tools: tools.map((t) => ({ name: t.name, effects: t.toolEffects })),
    }),
  };
  return makeCallable<S, z.output<O>>(def);
}
