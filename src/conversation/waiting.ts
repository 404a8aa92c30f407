import type { Approval } from "../approval/types.js";
import type { WaitingApproval } from "../records/types.js";
import { approvalKey, pluginOf } from "../records/keys.js";
import { copyOf } from "../runtime/values.js";
import type { DelegatedWait, NeedsPerson } from "../engine/runtime.js";
import { isFunctaiError } from "../errors.js";

/** An approval as a `waiting` record keeps it, back to an `Approval`: its input a copy (whoever is shown it changes nothing kept). */
export function approvalOf(w: WaitingApproval): Approval {
  const plugin = pluginOf(w.plugin);
  const approval: Approval = {
    id: approvalKey(w.site, w.invocation, plugin),
    name: w.name,
    input: copyOf(w.input),
    effects: w.effects ?? null,
    path: w.path,
    invocation: w.invocation,
    site: w.site,
  };
  if (plugin) approval.plugin = plugin;
  if (typeof w.question === "string") approval.question = w.question;
  return approval;
}

/** An approval as a `waiting` record keeps it. */
export const waitingOf = (a: Approval): WaitingApproval => {
  const w: WaitingApproval = { site: a.site, invocation: a.invocation, path: a.path, name: a.name, input: a.input, effects: a.effects, id: a.id };
  if (a.plugin !== undefined) w.plugin = a.plugin;
  if (a.question !== undefined) w.question = a.question;
  return w;
};

/**
 * What a caller's run rejects with when it stopped because a delegated turn
 * of it waits for approvals (`stop`, from delegate.ts): the caller's own
 * `Waiting` (`own()`: its `turn` the caller's handle, the one to resume once
 * they are answered), its approvals the delegated turn's, and `delegated`
 * where they wait. A `Waiting` takes its approvals from its turn, and the
 * caller's turn has none of its own: they are given here, on the one just made.
 */
export async function delegatedWaiting(own: () => Promise<Error>, stop: NeedsPerson & { waiting: DelegatedWait }): Promise<Error> {
  // (its turn unread, the store failing: the stop as it was, still coded turn-waiting and naming where to answer)
  const made = await own().catch(() => undefined);
  if (!isFunctaiError(made, "turn-waiting")) return stop;
  // (a `Waiting`, read by its shape: turn.ts imports this module)
  const waiting = made as unknown as Error & { turn: { id: string } };
  const { conversation, turn, approvals } = stop.waiting;
  const names = approvals.map((a) => `${a.path} #${a.invocation}`).join(", ");
  const message = `turn ${waiting.turn.id} stopped: the delegated turn ${turn} in conversation ${conversation} needs a person first (${names}). Answer it there (its turn.approve({ by }) or turn.deny({ reason }), from any process), then resume this turn.`;
  const told = waiting.message;
  Object.defineProperties(waiting, {
    approvals: { value: copyOf(approvals) },
    delegated: { value: { conversation, turn }, enumerable: true },
    message: { value: message },
  });
  // (its stack begins with the message it was made with, which told of approvals of its own turn)
  if (typeof waiting.stack === "string") waiting.stack = waiting.stack.replace(told, message);
  return waiting;
}
