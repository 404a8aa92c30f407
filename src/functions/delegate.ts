import type { z } from "zod";
import type { ApproveSetting } from "../approval/types.js";
import { SEND_ONCE, type ConversationInternals } from "../conversation/conversation.js";
import type { CallInput } from "./input.js";
import { NeedsPerson, markTurnStop, type DelegatedWait } from "../engine/runtime.js";
import { FunctaiError, describeValue, isFunctaiError, isInstance } from "../errors.js";
import { Waiting } from "../conversation/turn.js";
import { approvalOf } from "../conversation/waiting.js";
import { digest } from "../lm/digest.js";
import { readConversation } from "../records/read-conversation.js";
import type { Settings } from "../settings.js";
import type { Store } from "../store/types.js";
import { namedKeys, unknownKeys } from "../runtime/values.js";
import { isConversationId } from "../store/types.js";
import { isStoreFailure, markStoreFailure } from "../store/failures.js";
import { checkName, modelInputSchema } from "../tools/tool.js";
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
async function branchParent(store: Store, caller: string, callerTurn: string, delegated: string, now: number): Promise<string | null> {
  const callerState = readConversation(await store.read(caller), { now });
  const branch = new Set<string>();
  for (let id: string | null = callerTurn; id !== null && !branch.has(id); id = callerState.turns.get(id)?.parent ?? null) branch.add(id);
  const records = await store.read(delegated);
  const state = readConversation(records, { now });
  let parent: string | null = null;
  for (const r of records as unknown as { kind: string; turn?: string; request_id?: unknown }[]) {
    if (r.kind !== "turn" || typeof r.request_id !== "string" || !r.turn) continue;
    const askedBy = r.request_id.slice(0, r.request_id.indexOf("/"));
    if (branch.has(askedBy) && state.turns.get(r.turn)?.state === "done") parent = r.turn;
  }
  return parent;
}

/**
 * The caller's `approve` as the delegated turn reads it. A function or
 * `"changes"` / `"all"` is the same there. A list keeps its entries (a tool's
 * name, or a path ending inside the delegated program, matches there as it
 * does from the caller) and adds each entry written from the caller's side
 * of the delegate, as the delegated turn sees that path: its tool paths start
 * at the program's own name (`billing/refund`), where the caller sees them
 * under the delegate call (`desk/billing/refund`, or `desk/accounts/refund`
 * for a delegate named "accounts"). So `desk/billing/refund` and
 * `billing/refund` both ask about the refund inside; the list is what the
 * delegated turn's record keeps, so a resume anywhere reads it alike. (An
 * added entry matches as a path ending too, as every entry does: a program
 * that calls one of its own name deeper asks there as well, never less.)
 */
function delegatedRule(rule: ApproveSetting, callPath: string, root: string): ApproveSetting {
  if (!Array.isArray(rule)) return rule;
  const caller = callPath.split("/");
  const entries = new Set<string>(rule);
  for (const entry of rule as readonly string[]) {
    const names = entry.split("/");
    // the entry's first j names are the last j of the delegate call's path: the rest lies inside the delegated program
    for (let j = 1; j < names.length && j <= caller.length; j++)
      if (names.slice(0, j).join("/") === caller.slice(-j).join("/")) entries.add([root, ...names.slice(j)].join("/"));
  }
  return [...entries];
}

/**
 * The calling turn stops here without ending, resumable, because its
 * delegated turn needs a person first; it is let go at once (every process
 * reads it interrupted), not when its lease runs out. A delegated
 * conversation refusing the turn (conversation-busy: another delegated turn
 * there waits for a person, such as a call made beside this one in the same
 * step) needs a person as well: the call is sent again when the caller is
 * resumed, never kept as a failed call the model would see for good.
 */
function needsPerson(e: FunctaiError, conversation: string, waiting: DelegatedWait | undefined): NeedsPerson {
  // turn-unfinished or turn-waiting, as the delegated conversation said
  return new NeedsPerson(
    `the delegated turn in conversation ${conversation} needs a person first (${e.message}). Answer it there, then resume this turn.`,
    e.code === "turn-waiting" || e.code === "conversation-busy" ? "turn-waiting" : "turn-unfinished",
    waiting,
  );
}

/**
 * The approvals a delegated conversation's refusal waits for, and where: a
 * `Waiting`'s (where its own delegated turn waits, two levels down or more,
 * else its turn), or for `conversation-busy` those of the turn there that
 * waits (the head). None for a tool that may have run (`turn-unfinished`:
 * a person says what it did, nothing is approved), nor when the head no
 * longer waits (answered meanwhile: a resume goes on).
 */
async function waitsIn(e: FunctaiError, store: Store, conversation: string, now: number): Promise<DelegatedWait | undefined> {
  if (isInstance(e, Waiting)) {
    const w = e as Waiting;
    return w.delegated ? { ...w.delegated, approvals: w.approvals } : { conversation, turn: w.turn.id, approvals: w.approvals };
  }
  if (e.code !== "conversation-busy") return undefined;
  const state = readConversation(await store.read(conversation), { now });
  const head = state.head === null ? undefined : state.turns.get(state.head);
  if (head?.state !== "waiting" || head.waiting.length === 0) return undefined;
  return { conversation, turn: head.id, approvals: head.waiting.map(approvalOf) };
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
 * The delegated turns take the caller's settings (its model, lease, …),
 * its `approve` too (the program's own settings are nearer, as in a plain
 * call): the call to the delegate is asked about in the calling turn, and
 * each tool call inside in the delegated turn, as a plain call asks them. A
 * rule is kept with the delegated turn's record (its entries as the caller
 * or the program sees paths: see `delegatedRule`); a function is asked in
 * this process, and the record keeps "function", so a resume without it
 * asks a person what the function would have been asked, as a
 * conversation's own turns do. A delegated turn that needs a person (it
 * waits for an approval, or a tool of it may have run when its process died)
 * stops the calling turn without ending it: answer the delegated turn in its
 * conversation, then resume the caller. One that waits for approvals makes
 * the caller's send (or resume) reject with a `Waiting` whose `turn` is the
 * caller's, whose `approvals` are the delegated turn's, and whose
 * `delegated` names the conversation and turn they wait in.
 *
 * @example
 * const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
 * await desk.conversation("sam", { store: "chats/" }).send("What did billing say last time?");
 */
export function delegate<S extends z.ZodRawShape, O>(target: Callable<S, O>, options: { name?: string } | null = {}): ToolLike {
  // a plain tool has no conversation to answer in: it was taken, and failed when the model first called it
  if (typeof target !== "function" || (target.kind !== "ai" && target.kind !== "program") || typeof target.definition !== "object")
    throw new FunctaiError("settings-invalid", `delegate takes an AI function or a program, not ${describeValue(target, 80)}`);
  // it takes a name and nothing else: a key that is none (`nmae`, an `effects` or `description` hoped to be set
  // here) was read by nothing, and the delegate went on as the program without a word
  if (options !== null && options !== undefined) {
    if (typeof options !== "object" || Array.isArray(options))
      throw new FunctaiError("settings-invalid", `delegate(${target.name}, options): options are { name? }, not ${describeValue(options, 80)}`);
    const odd = unknownKeys(Object.keys(options), ["name"]);
    if (odd.length > 0)
      throw new FunctaiError(
        "settings-invalid",
        `delegate(${target.name}, options): ${namedKeys(odd, "is not an option", "are not options")}; delegate takes { name? } (its description, input and effects are the program's own)`,
      );
  }
  const name = checkName("delegate", options?.name ?? target.name);
  return {
    name,
    description: target.description,
    // the model calls it by the delegate's name: a key that is no input is refused naming that, never the program's
    // own name, a tool the model was not offered
    inputSchema: modelInputSchema(name, target.definition.inputSchema.shape),
    toolEffects: target.toolEffects,
    composite: true,
    async runAsTool(input, ctx) {
      const runtime = ctx.frame.runtime;
      const conversation = runtime.conversation;
      // (the tool loop parsed the input by the program's schema already: not parsed again, so a transform runs once)
      if (!conversation || runtime.mode !== "conversation") return target.runAsTool(input, ctx);
      const id = delegatedId(conversation.id, name);
      // the caller's settings, where the program has none of its own (its own are nearer, as for any nested call); its
      // plugins add up with the program's, as in a plain call: dropped for an audit plugin of the program's, a caller's
      // guard was not asked inside it, and what it blocks ran
      const own = new Set([target.definition.settings, ...target.layers].flatMap((layer) => Object.keys(layer)));
      const settings: Settings = Object.fromEntries(
        Object.entries(ctx.frame.settings as Settings).filter(([key]) => key !== "store" && (key === "plugins" || !own.has(key))),
      );
      // the caller's approve reaches the tools inside, as in a plain call: a delegate is no way around a rule or a function's no
      if (settings.approve !== undefined) settings.approve = delegatedRule(settings.approve, ctx.path, target.definition.name);
      const chat = target.conversation(id, { ...settings, store: conversation.store, clock: runtime.clock }) as unknown as ConversationInternals<
        CallInput<S>,
        O
      >;
      // the same call of the same turn, with the same input: a call the model makes differently on resume is a new request
      const requestId = `${runtime.turn}/${ctx.site}:${ctx.invocation}:${digest(JSON.stringify(input)).slice(0, 16)}`;
      // the reply that asked for this call is kept before the delegated turn acts: a resumed caller does not ask again
      await runtime.journal.flush();
      // (the caller's journal read: a store that fails it fails the caller's journal, marked so, see store/failures.ts)
      const parent = await branchParent(conversation.store, conversation.id, runtime.turn, id, runtime.clock.now()).catch((e: unknown) =>
        Promise.reject(markStoreFailure(e, conversation)),
      );
      try {
        // (its effects ask the caller's lease too: a caller abandoned, or taken over while this process was paused, stops it)
        return await chat[SEND_ONCE](input as never, { requestId, parent, parsed: true, upstream: (afterWait) => runtime.beforeEffect(afterWait) });
      } catch (e) {
        // the delegated turn's journal failing is the caller's too (its work, journaled beside it): the caller stops,
        // resumable, as for its own, never a tool error the model is shown
        if (isStoreFailure(e, { store: conversation.store, id })) throw markStoreFailure(e, conversation);
        // so is its stop (its lease lost, as the caller's was): the caller's own, never the tool's error
        if (isFunctaiError(e, "lease-lost") || isFunctaiError(e, "turn-claimed")) throw markTurnStop(e);
        if (!isFunctaiError(e, "turn-unfinished") && !isFunctaiError(e, "turn-waiting") && !isFunctaiError(e, "conversation-busy")) throw e;
        await runtime.journal.flush(); // what this run learned is kept: replies are not paid for again
        // (what waits there, read for a refused call: a store that fails the read leaves the stop without it, never unmade)
        const waiting = await waitsIn(e, conversation.store, id, runtime.clock.now()).catch(() => undefined);
        throw needsPerson(e, id, waiting);
      }
    },
  };
}
