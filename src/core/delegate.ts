import type { z } from "zod";
import { SEND_ONCE, type ConversationInternals } from "../conversation/conversation.js";
import { digest } from "../lm/fingerprint.js";
import { readConversation } from "../records/read-conversation.js";
import type { Settings } from "../settings.js";
import type { Store } from "../store/types.js";
import { isConversationId } from "../store/types.js";
import { checkName } from "../tools/tool.js";
import type { ToolLike } from "../tools/types.js";
import type { Callable } from "./callable.js";

/** The delegate's conversation id: `<caller>.<name>`, shortened with a digest when it would pass 200 characters. */
function delegatedId(caller: string, name: string): string {
  const id = `${caller}.${name}`;
  if (id.length <= 200 && isConversationId(id)) return id;
  return `${caller.slice(0, 150)}.${name.slice(0, 20)}.${digest(id).slice(0, 16)}`.replace(/\.\.+/g, ".");
}

/**
 * The delegated turn the next call builds on: the last one that ended done
 * and was asked for by a turn on the caller's branch (the calling turn or
 * one of its ancestors), so a branch remembers what it was told, and only that.
 */
async function branchParent(store: Store, caller: string, callerTurn: string, delegated: string): Promise<string | null> {
  const callerState = readConversation(await store.read(caller), { now: Date.now() });
  const branch = new Set<string>();
  for (let id: string | null = callerTurn; id !== null && !branch.has(id); id = callerState.turns.get(id)?.parent ?? null) branch.add(id);
  const records = await store.read(delegated);
  const state = readConversation(records, { now: Date.now() });
  let parent: string | null = null;
  for (const r of records as unknown as { kind: string; turn?: string; request_id?: unknown }[]) {
    if (r.kind !== "turn" || typeof r.request_id !== "string" || !r.turn) continue;
    const askedBy = r.request_id.slice(0, r.request_id.indexOf("/"));
    if (branch.has(askedBy) && state.turns.get(r.turn)?.state === "done") parent = r.turn;
  }
  return parent;
}

/**
 * A tool whose program answers in a conversation of its own, beside the
 * calling turn's (`<conversation>.<name>`, in the same store), so it
 * remembers what it was told before, per branch: each call sees the earlier
 * calls made on the caller's branch of turns. A call is sent once: when the
 * calling turn is resumed, the same call finds the delegated turn it sent
 * (by request id) and takes its answer, or goes on with it. Outside a
 * conversation it is a plain call of the program.
 *
 * The delegated turns take the caller's settings (its model, lease, …) but
 * not its approval rule: the call to the delegate is what the caller's rule
 * asks about.
 *
 * @example
 * const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
 * await desk.conversation("sam", { store: "chats/" }).send("What did billing say last time?");
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
      const runtime = ctx.frame.runtime;
      const conversation = runtime.conversation;
      if (!conversation || runtime.mode !== "conversation") return target(input as never, { ctx });
      const id = delegatedId(conversation.id, name);
      const { approve: _approve, store: _store, ...settings } = ctx.frame.settings as Settings;
      const chat = target.conversation(id, { ...settings, store: conversation.store }) as unknown as ConversationInternals<S, O>;
      const requestId = `${runtime.turn}/${ctx.site}:${ctx.invocation}`;
      const parent = await branchParent(conversation.store, conversation.id, runtime.turn, id);
      return chat[SEND_ONCE](input as never, { requestId, parent });
    },
  };
}
