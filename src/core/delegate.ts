import type { z } from "zod";
import { FunctaiError } from "../errors.js";
import { checkName } from "../tools/tool.js";
import type { ToolLike } from "../tools/types.js";
import type { Callable } from "./callable.js";

/**
 * A tool whose program answers in a conversation of its own, beside the
 * calling turn's (`<conversation>.<name>`), so it remembers what it was told
 * before. Outside a conversation it is a plain call of the program.
 *
 * @example
 * const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
 */
export function delegate<S extends z.ZodRawShape, O>(target: Callable<S, O>, options: { name?: string } = {}): ToolLike {
  const name = checkName("delegate", options.name ?? target.name);
  return {
    name,
    description: target.description,
    inputSchema: target.inputSchema,
    toolEffects: target.toolEffects,
    composite: true,
    async runAsTool(input, ctx) {
      const conversation = ctx.frame.runtime.conversation;
      if (!conversation) return target(input as never, { ctx });
      const id = `${conversation.id}.${name}`.slice(0, 200);
      if (ctx.frame.runtime.mode !== "conversation") throw new FunctaiError("turn-state", "delegate runs inside a conversation turn");
      return target.conversation(id, { store: conversation.store }).send(input as never);
    },
  };
}
