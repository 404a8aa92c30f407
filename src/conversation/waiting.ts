import type { Approval } from "../approval/types.js";
import { ConversationError } from "../errors.js";
import type { WaitingApproval } from "../records/types.js";
import type { Turn } from "./turn.js";
import { approvalKey, pluginOf } from "../records/keys.js";

/** A conversation's turn stopped for a person: it is saved, and anyone who opens the conversation can answer it. */
export class Waiting extends ConversationError {
  readonly turn: Turn;
  readonly approvals: Approval[];
  constructor(turn: Turn) {
    const names = turn.waiting.map((a) => `${a.path} #${a.invocation}`).join(", ");
    super("turn-waiting", `turn ${turn.id} waits for a person's answer (${names}): turn.approve({ by }) or turn.deny({ reason }), from this process or any other.`);
    this.name = "Waiting";
    this.turn = turn;
    this.approvals = turn.waiting;
  }
}

/** An approval as a `waiting` record keeps it, back to an `Approval`. */
export function approvalOf(w: WaitingApproval): Approval {
  const plugin = pluginOf(w.plugin);
  const approval: Approval = {
    id: approvalKey(w.site, w.invocation, plugin),
    name: w.name,
    input: w.input,
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
