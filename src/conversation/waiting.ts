import type { Approval } from "../approval/types.js";
import type { WaitingApproval } from "../records/types.js";
import { approvalKey, pluginOf } from "../records/keys.js";
import { copyOf } from "../runtime/values.js";

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
