import type { z } from "zod";
import { asksApproval, blockText, refusalText } from "../approval/rule.js";
import type { Approval, ApproveFunction } from "../approval/types.js";
import { FunctaiError, describeError, describeValue } from "../errors.js";
import type { Effects } from "../records/types.js";
import type { Plugin } from "../plugins/types.js";
import type { ToolLike } from "../tools/types.js";
import type { Frame } from "./frame.js";
import { abortError } from "./runtime.js";
import { approvalKey } from "../records/keys.js";
import type { RecordedAnswer, RecordedBlock } from "./journal.js";
import { hasKey, keptJson } from "./tool-boundary.js";
import { readWith } from "../schema-read.js";

export interface CallSubject {
  name: string;
  input: unknown;
  effects: Effects | null;
  path: string;
  invocation: number;
  id: string;
  /** The model's reply that made this call was paid in this run (its request was sent anew), not replayed from the records. */
  anew: boolean;
  /** The tool's input schema, which already read `input`: it checks an input a plugin changes. */
  schema: z.ZodType;
  /** What the tool is (its definition's `kind`), as the hooks are told it. */
  kind: ToolLike["kind"];
}

/** What happens to a tool call: it runs (maybe with a changed input), is refused (the model sees `text`), or waits for a person. */
export type Decision =
  | { kind: "run"; input: unknown; approved?: { by: string | null } }
  | {
      kind: "refused";
      text: string;
      refused?: { by: string | null; reason: string | null };
      /** A plugin's `toolCall` blocked it: `now` in this run, else read back from the records (see recordedBlock). */
      blocked?: { by: string; reason: string; now?: true };
    }
  | { kind: "pending"; approval: Approval };

/**
 * The call's input as JSON reads it, frozen: what an approval shows. It is
 * what the journal keeps and a person answering from elsewhere is shown
 * (money an input schema made a class instance of is shown as its JSON,
 * where a structured clone of it failed on a function field). The call runs
 * with its own input, so an approve function or a stream's reader that
 * changes what it was shown (`a.input.amount = 1000`) is refused (a
 * TypeError in strict code), never runs the tool with what nobody approved.
 * (The input was checked to be JSON before anything is asked: see
 * checkKeepable in tool-calls.ts.)
 */
function shownInput(input: unknown): unknown {
  if (typeof input !== "object" || input === null) return input;
  const copy: unknown = JSON.parse(JSON.stringify(input));
  const freeze = (value: unknown): void => {
    if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  };
  freeze(copy);
  return copy;
}

const makeApproval = (frame: Frame, call: CallSubject, plugin?: string, question?: string): Approval => {
  const approval: Approval = {
    id: approvalKey(frame.site, call.invocation, plugin),
    name: call.name,
    input: shownInput(call.input),
    effects: call.effects,
    path: call.path,
    invocation: call.invocation,
    site: frame.site,
  };
  if (plugin !== undefined) approval.plugin = plugin;
  if (question !== undefined) approval.question = question;
  return approval;
};

/**
 * A person's recorded answer to this call, when it was given to this call.
 * It is found by place (site, invocation, plugin) and tool; the input a
 * person was shown must be the one the call has now. When it is not:
 * - the reply was paid anew in this run (a deploy or another model changed
 *   the request): the model made another call here, which nobody answered:
 *   none (it is asked about again);
 * - the reply was replayed (the very call that was shown), so the tool's
 *   input schema reads it otherwise now (a default or transform that gives a
 *   new value each time, or a schema changed since): a yes is refused
 *   (`tool-failed`), never run on something nobody approved; a no stands.
 */
function recordedAnswer(frame: Frame, call: CallSubject, plugin: string | null | undefined, input: unknown): RecordedAnswer | undefined {
  const { journal } = frame.runtime;
  const recorded = journal.answer(frame.site, call.invocation, plugin, call.path);
  if (recorded === undefined) return undefined;
  const shown = journal.shownInput(frame.site, call.invocation, plugin);
  if (shown === undefined) return recorded;
  const now = JSON.stringify(input ?? null);
  if (now === JSON.stringify(shown.input ?? null)) return recorded;
  if (call.anew) return undefined;
  if (recorded.verdict === "yes")
    throw new FunctaiError(
      "tool-failed",
      `${call.path}: a person approved it with the input ${describeValue(shown.input, 120)}, and the same call of the model reads as ${describeValue(input, 120)} now; it did not run. The tool's input schema gives a new value each time (a default or transform) or was changed since the turn began; make it give the same value each time.`,
    );
  return recorded;
}

/**
 * What an approve function answers, unless the turn is stopped first: one
 * that asks someone (a prompt, a chat message) may never answer, and the
 * stopped call would wait for it for good. Nothing has run while it is
 * asked, so the call stops at once (its late answer is dropped).
 */
function untilAborted<T>(ask: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(abortError(signal));
    signal.addEventListener("abort", stop, { once: true });
    const done = (): void => signal.removeEventListener("abort", stop);
    let answer: Promise<T>;
    try {
      answer = Promise.resolve(ask());
    } catch (e) {
      answer = Promise.reject(e);
    }
    answer.then(
      (value) => (done(), resolve(value)),
      (e: unknown) => (done(), reject(e)),
    );
  });
}

/** Who gave an approve function's answer, in its `approval` record and wherever that answer is shown. */
const BY_FUNCTION = "function";

async function answerFor(frame: Frame, call: CallSubject, approval: Approval, approve: unknown): Promise<RecordedAnswer | null> {
  const recorded = recordedAnswer(frame, call, approval.plugin, approval.input);
  if (recorded) return recorded;
  if (typeof approve !== "function") return null;
  let answer: unknown;
  const { signal } = frame.runtime;
  try {
    answer = await untilAborted(() => (approve as ApproveFunction)(approval), signal);
  } catch (e) {
    if (signal.aborted) throw abortError(signal); // stopped while it was asked: nothing ran, nothing waits for it
    throw new FunctaiError("plugin-failed", `the approve function failed on ${approval.path}: ${describeError(e)}`, { cause: e });
  }
  // true, false or a reason: anything else (a forgotten return's undefined, 1, an object) is not taken for a no without a word
  if (answer !== true && answer !== false && typeof answer !== "string")
    throw new FunctaiError(
      "plugin-failed",
      `the approve function gave ${describeValue(answer, 80)} for ${approval.path}: return true (run it), false (refuse it) or a reason (a string: refuse it, saying why)`,
    );
  // by "function", as its record says: the same answer read back on resume (plugins' `approved`, the `approved` event) says so too
  const result: RecordedAnswer =
    answer === true
      ? { verdict: "yes", reason: null, by: BY_FUNCTION, fresh: true }
      : { verdict: "no", reason: typeof answer === "string" ? answer : null, by: BY_FUNCTION, fresh: true };
  // kept, so a resumed turn does not ask again about a call it already answered; with the input it was shown (as a
  // `waiting` record keeps what a person is shown): a resumed turn whose reply was paid anew may make another call at
  // this place, which this answer never approves (see recordedAnswer)
  void frame.runtime.journal.add({
    kind: "approval",
    site: frame.site,
    invocation: approval.invocation,
    plugin: approval.plugin ?? null,
    path: approval.path,
    verdict: result.verdict,
    by: BY_FUNCTION,
    reason: result.reason,
    input: approval.input,
  });
  frame.runtime.emit(
    frame.path,
    { type: "approved", approval, verdict: result.verdict, by: result.by, reason: result.reason },
    `approved:${approval.id}`,
  );
  return result;
}

/**
 * The block an earlier run's plugin gave this very call, if one did: at this
 * place, of this tool, and (for a reply paid anew in this run, which may
 * make another call here) with the input the plugin was shown.
 */
function recordedBlock(frame: Frame, call: CallSubject): RecordedBlock | undefined {
  const block = frame.runtime.journal.block(frame.site, call.invocation);
  if (block === undefined || block.path !== call.path) return undefined;
  if (call.anew && JSON.stringify(block.input ?? null) !== JSON.stringify(call.input ?? null)) return undefined;
  return block;
}

/**
 * A person's recorded no to a plugin's question about this call, if one
 * stands (given to this call: see `recordedAnswer`). The plugins that ask
 * again in this run were answered already, by the same records.
 */
function pluginRefusal(frame: Frame, call: CallSubject, input: unknown): RecordedAnswer | undefined {
  const { journal } = frame.runtime;
  const plugins = journal.pluginsAnswered(frame.site, call.invocation);
  if (plugins === undefined) return undefined;
  for (const plugin of plugins) {
    if (journal.answer(frame.site, call.invocation, plugin, call.path)?.verdict !== "no") continue;
    const recorded = recordedAnswer(frame, call, plugin, input);
    if (recorded) return recorded;
  }
  return undefined;
}

/**
 * Runs the plugins' `toolCall` hooks (settings-layer order), then the
 * built-in approval, and says what happens to the call.
 */
export function decide(frame: Frame, call: CallSubject): Decision | Promise<Decision> {
  const { approve, plugins } = frame.settings;
  // a call a plugin blocked stays blocked, whatever plugins the run that resumes is given: the model was told so, and
  // what it answered next was recorded on that history (run now, a refund finance was to see ran, and the turn's
  // recorded replies no longer answered its requests)
  const blocked = recordedBlock(frame, call);
  if (blocked) return { kind: "refused", text: blockText(blocked.plugin, blocked.reason), blocked: { by: blocked.plugin, reason: blocked.reason } };
  // the common case (no plugins, no recorded answer, nobody to ask) decides without a promise: the loop's hot path
  if (plugins === undefined || plugins.length === 0) {
    const { journal } = frame.runtime;
    const recorded = journal.answer(frame.site, call.invocation, null, call.path);
    if (!recorded && !journal.pluginsAnswered(frame.site, call.invocation) && !asksApproval(approve ?? null, call))
      return { kind: "run", input: call.input };
  }
  return decideFully(frame, call);
}

/** Whether a `toolCall` hook's answer (neither undefined nor null) is one of those it may give: `{ block: reason }`, `{ input }`, `{ ask: question }`. */
function takenAnswer(answer: unknown): boolean {
  try {
    const { block, ask } = answer as { block?: unknown; ask?: unknown };
    if (hasKey(answer, "block")) return typeof block === "string";
    return hasKey(answer, "input") || (hasKey(answer, "ask") && typeof ask === "string");
  } catch {
    return false; // (a Proxy whose traps throw)
  }
}

/**
 * An input a plugin changed, as the call goes on with it: the next plugins,
 * a person or the approve function are shown it, and the tool runs with it.
 * The plugin was shown the input as the tool's schema read it (transforms
 * applied), and hands back one of that kind: the schema checks it (one it
 * refuses, or throws on, fails the call here, before anyone is asked or
 * anything runs), and the call goes on with the plugin's value, never the
 * schema's reading of it, which would apply a transform to a value it
 * already gave (dollars made cents, then cents made cents again). Kept as
 * its JSON copy: what the journal keeps and a resumed turn reads back, never
 * the plugin's own object, which it may go on changing.
 */
function changedInput(call: CallSubject, plugin: string, changed: unknown): unknown {
  const read = readWith(call.schema, changed);
  if ("thrown" in read)
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin} changed the input of ${call.path}, and the tool's input schema threw while checking it: ${describeError(read.thrown)}`,
      { cause: read.thrown },
    );
  if (!read.success)
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin} changed the input of ${call.path} into one the tool does not take: ${read.error.issues[0]?.message ?? "invalid"}`,
    );
  const kept = keptJson(changed);
  if ("why" in kept)
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin} changed the input of ${call.path} into one JSON cannot keep (${kept.why}), and a tool's input is journaled, shown to a person and streamed`,
    );
  return kept.value;
}

/** A value's JSON, to tell whether it changed; undefined when it has none (a BigInt put in it: it changed, and `changedInput` says why). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return undefined;
  }
}

async function decideFully(frame: Frame, call: CallSubject): Promise<Decision> {
  const { approve, plugins = [] } = frame.settings;
  let input = call.input;
  let approved: { by: string | null } | undefined; // a yes given to a plugin's question, if nobody else is asked
  for (const plugin of plugins as readonly Plugin[]) {
    const hook = plugin.hooks.toolCall;
    if (!hook) continue;
    const shown = input;
    const before = jsonOf(shown);
    let decision;
    const { signal } = frame.runtime;
    try {
      // (until the turn is stopped, as the approve function: a hook that asks a service that never answers does not
      // hold a stop for good; nothing has run while a call is decided, so the call stops at once, its late answer dropped)
      decision = await untilAborted(
        () =>
          hook({
            name: call.name,
            input,
            effects: call.effects,
            path: call.path,
            site: frame.site,
            invocation: call.invocation,
            turn: frame.runtime.turn,
            id: call.id,
            attempt: frame.runtime.journal.attempt,
            ...(call.kind !== undefined && { kind: call.kind }),
          }),
        signal,
      );
    } catch (e) {
      if (signal.aborted) throw abortError(signal);
      throw new FunctaiError("plugin-failed", `plugin ${plugin.name} failed on ${call.path}: ${describeError(e)}`, { cause: e });
    }
    // a hook that changed the input it was shown in place changed it as one that hands it back does: checked the same
    if (jsonOf(shown) !== before) input = changedInput(call, plugin.name, shown);
    if (decision === undefined || decision === null) continue;
    // anything else is refused, never taken to mean "go on": a JavaScript plugin's `false`, or `{ blok }`, would let the tool run
    if (!takenAnswer(decision))
      throw new FunctaiError(
        "plugin-failed",
        `plugin ${plugin.name} answered ${describeValue(decision, 80)} on ${call.path}: return undefined (go on), { input }, { block: reason } or { ask: question } (reason and question strings)`,
      );
    if ("block" in decision) {
      // kept, so a resumed turn finds the call blocked whatever plugins it is given (see recordedBlock)
      void frame.runtime.journal.add({
        kind: "approval",
        site: frame.site,
        invocation: call.invocation,
        plugin: plugin.name,
        path: call.path,
        verdict: "no",
        by: null,
        reason: decision.block,
        blocked: true,
        input,
      });
      return { kind: "refused", text: blockText(plugin.name, decision.block), blocked: { by: plugin.name, reason: decision.block, now: true } };
    }
    if ("input" in decision) input = decision.input === shown ? input : changedInput(call, plugin.name, decision.input);
    else if ("ask" in decision) {
      const approval = makeApproval(frame, { ...call, input }, plugin.name, decision.ask);
      const answer = await answerFor(frame, call, approval, approve);
      if (!answer) return { kind: "pending", approval };
      if (answer.verdict === "no") return refusedBy(answer);
      approved = { by: answer.by };
    }
  }
  // a person's no to a plugin's question stands too, whatever plugins this run is given: a turn is often answered
  // and resumed from a handle opened elsewhere (only a store and a model), where the plugin that asked is not given,
  // and nobody asks its question again. (A yes only answered that plugin: the other questions are asked as usual.)
  const refusal = pluginRefusal(frame, call, input);
  if (refusal) return refusedBy(refusal);
  // a person's recorded answer stands whoever resumes the turn, with whatever settings
  const recorded = recordedAnswer(frame, call, null, input);
  if (recorded)
    return recorded.verdict === "yes"
      ? { kind: "run", input, approved: { by: recorded.by } }
      : refusedBy(recorded);
  if (!asksApproval(approve ?? null, call)) return approved ? { kind: "run", input, approved } : { kind: "run", input };
  const approval = makeApproval(frame, { ...call, input });
  const answer = await answerFor(frame, call, approval, approve);
  if (!answer) return { kind: "pending", approval };
  return answer.verdict === "yes" ? { kind: "run", input, approved: { by: answer.by } } : refusedBy(answer);
}

/**
 * A call an answer refused: the text the model reads, and (for the run that first acts on the answer: it is `fresh`)
 * who refused it and why, for the plugins' `toolResult` (a run that replays it tells them nothing again).
 */
function refusedBy(answer: RecordedAnswer): Decision {
  const text = refusalText(answer.reason);
  return answer.fresh === true ? { kind: "refused", text, refused: { by: answer.by, reason: answer.reason } } : { kind: "refused", text };
}
