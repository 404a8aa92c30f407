import { ApprovalError, ConversationError, FunctaiError, describeError, describeValue, isInstance } from "../errors.js";
import type { Message, ToolCall } from "../lm/types.js";
import type { AnsweredDoubt, Plugin, PluginToolCall, PluginToolResult, StoppedForPerson } from "../plugins/types.js";
import { aroundTool, type ToolRunWatch } from "../plugins/hooks.js";
import { changesThings } from "../approval/rule.js";
import type { Approval } from "../approval/types.js";
import { outputText } from "../tools/tool.js";
import type { ToolLike } from "../tools/types.js";
import { decide, type Decision } from "./approvals.js";
import { frameCarrier } from "./carrier.js";
import { childFrame, type Frame } from "./frame.js";
import { LeaseLost, NeedsPerson, Suspend, isTurnStop, markTurnStop, type TurnRuntime } from "./runtime.js";
import { StopBound } from "./stop-bound.js";
import type { RecordBody } from "./journal.js";
import type { TurnEventBody } from "../turn/events.js";
import { issuesText, readWith } from "../schema-read.js";
import { copyOf } from "../runtime/values.js";
import { isStoreCode, isStoreFailure } from "../store/failures.js";
import { ToolCallContext, cappedErrorText, hasKey, notJson, outputJson, thrownText } from "./tool-boundary.js";

/** One tool call of a step, once numbered, checked and decided. */
interface Prepared {
  call: ToolCall;
  invocation: number;
  path: string;
  tool: ToolLike | undefined;
  /** Settled by an earlier run (done, or given by a person): not run again. */
  recorded?: { output?: unknown; error?: string };
  /** The model's call cannot run (unknown tool, bad input): the model is told why. */
  problem?: string;
  /**
   * Why it never reaches its tool (it cannot run, or a plugin blocked it), for the plugins' `toolResult`: told by the
   * run that first settles its step (see firstSettles); dropped in a run that replays a step settled before.
   */
  unrun?: PluginToolResult["unrun"];
  decision?: Decision;
  /** Its `tool_call` was shown (when streaming): it is being decided, and ends with a `tool_result`. */
  called?: true;
  /** A person answered it, left in doubt by an earlier run, and this run is the first to go on after that (see Journal.answeredDoubt). */
  answered?: AnsweredDoubt;
}

const toolMessage = (p: Prepared, content: string, isError = false): Message =>
  isError
    ? { role: "tool", toolCallId: p.call.id, name: p.call.name, content, isError: true }
    : { role: "tool", toolCallId: p.call.id, name: p.call.name, content };

/**
 * A tool record's body for a call in a state: the call's fields, then
 * `state`. Each is a fresh literal that the caller adds its state's keys to,
 * never `{ ...base, state, … }`: V8 11 (Node 20) builds an object spread
 * with keys written after it on its slow path (about 0.8 µs a key, several
 * per step).
 */
const toolBody = (site: string, p: Prepared, state: "started" | "done" | "rerun"): RecordBody => ({
  kind: "tool",
  site,
  invocation: p.invocation,
  id: p.call.id,
  name: p.call.name,
  path: p.path,
  state,
});

/** Numbers, checks and decides one call; a promise only when its decision is one (a plugin, a person). */
function prepare(frame: Frame, call: ToolCall, tools: ReadonlyMap<string, ToolLike>, anew: boolean): Prepared | Promise<Prepared> {
  const invocation = ++frame.invocations;
  const tool = tools.get(call.name);
  const p: Prepared = { call, invocation, path: `${frame.path}/${call.name}`, tool };
  const record = frame.runtime.journal.tool(frame.site, invocation);
  // a record of another tool at this place: the request was sent anew (a deploy, another model) and its reply calls
  // something else here. One tool's result is never another's, and a tool that ran (or may have) is not let run
  // again under another call's place: the turn stops, saying so, and nothing runs
  if (record && record.name !== call.name)
    throw new ConversationError(
      "turn-state",
      `${p.path} (invocation ${invocation}): this turn's records say ${JSON.stringify(record.name)} was called here (${record.state}), and the model now calls ${JSON.stringify(call.name)}: the program or its model changed since the turn began, and its request was sent anew; nothing ran. Go on with the code the turn began with, or abandon() it.`,
    );
  if (record && (record.state === "done" || record.state === "given")) {
    const kept = anew ? frame.runtime.journal.toolInput(frame.site, invocation) : undefined;
    const same = anew ? sameCall(kept, tool, call) : true;
    if (same === false)
      throw new ConversationError(
        "turn-state",
        `${p.path} (invocation ${invocation}): this turn's records say it ran here with the input ${describeValue(kept!.input, 120)}, and the model now calls it with ${describeValue(call.input, 120)}: the program or its model changed since the turn began, and its request was sent anew; nothing ran. Go on with the code the turn began with, or abandon() it.`,
      );
    if (same) {
      p.recorded = record.error === undefined ? { output: record.output } : { error: record.error };
      answeredAt(frame, p);
      return p;
    }
    // a reply paid anew calls this tool here, and its record kept no input (it only reads): run as a new call
  }
  if (record?.state === "started")
    throw markTurnStop(
      new ConversationError(
        "turn-unfinished",
        `${p.path} (invocation ${invocation}) started and may have run: say what it returned, or ask for a rerun`,
      ),
    );
  answeredAt(frame, p); // (a rerun a person asked for: it runs below as any call)
  if (!tool) {
    p.problem = `Error: there is no tool named ${JSON.stringify(call.name)}. The tools are: ${[...tools.keys()].join(", ") || "(none)"}.`;
    return unrunnable(p, "tool-unknown");
  }
  if (call.inputError !== undefined) {
    p.problem = `Error: the input for ${call.name} could not be read (${call.inputError}). Send valid JSON.`;
    return unrunnable(p, "input-invalid");
  }
  // read from a copy: the model's call is its reply's own object (journaled with it, sent back in the next request), and a
  // schema that passes a value through (z.any()) would hand the tool, its hooks and a person that object to change
  const parsed = readWith(tool.inputSchema, copyOf(call.input));
  if ("thrown" in parsed) {
    const why = `its input schema threw while checking it: ${cappedErrorText(describeError(parsed.thrown))}`;
    // the tool's fault (a refinement's bug, a lookup that failed), not the model's: as a tool that fails
    if (frame.settings.toolErrors === "raise") throw new FunctaiError("tool-failed", `${p.path} failed: ${why}`, { cause: parsed.thrown });
    p.problem = `Error: the input for ${call.name} could not be checked (${why}). The tool did not run.`;
    return unrunnable(p, "tool-failed");
  }
  if (!parsed.success) {
    p.problem = `Error: invalid input for ${call.name}: ${issuesText(parsed.error, "input")}. The tool did not run.`;
    return unrunnable(p, "input-invalid");
  }
  checkKeepable(p, parsed.data);
  const runtime = frame.runtime;
  p.called = true;
  if (runtime.streaming) {
    runtime.emit(
      frame.path,
      // (its own copy: a reader that changes it for display, while a person is asked, changes nothing that runs)
      { type: "tool_call", site: frame.site, invocation, name: call.name, input: copyOf(parsed.data), effects: tool.toolEffects },
      `tool_call:${frame.site}:${invocation}`,
    );
    runtime.unended.set(p, (why) => showUnrun(frame, [p], why, true));
  }
  // a plugin's changed input is checked there, as it is handed back (before the next plugin, a person or the approve function)
  const decision = decide(frame, {
    name: call.name,
    input: parsed.data,
    effects: tool.toolEffects,
    path: p.path,
    invocation,
    id: call.id,
    anew,
    schema: tool.inputSchema,
    kind: toolKind(tool),
  });
  return decision instanceof Promise
    ? decision.then(
        (d) => decided(p, d),
        (e: unknown) => {
          showUnrun(frame, [p], e);
          throw e;
        },
      )
    : decided(p, decision);
}

/**
 * A call that cannot run (its `problem` says why): the plugins' `toolResult` is told of it (a tracer shows the call
 * the model made and why it did not run) by the run that first settles its step (see firstSettles).
 */
function unrunnable(p: Prepared, code: "tool-unknown" | "input-invalid" | "tool-failed"): Prepared {
  p.unrun = { code };
  return p;
}

/** Notes a person's answer to the call at this place, left in doubt, that this run is the first to go on after. */
function answeredAt(frame: Frame, p: Prepared): void {
  const answered = frame.runtime.journal.answeredDoubt(frame.site, p.invocation);
  if (answered !== undefined) p.answered = answered;
}

/**
 * Ends the shown calls that never ran because their step failed first (a
 * `toolCall` hook, an approve function or a `toolRun` hook threw, here or on
 * another call of the step; the run had already ended, a call left running):
 * each gets an error `tool_result` saying so, once. `ran`: its body ran and
 * was cut short by what stops the turn (a nested call's broken plugin or
 * store), or its turn ended first: it did not finish. A stream that showed a
 * call's `tool_call` and never its `tool_result` left a UI showing it running
 * for ever. Not when the turn stops resumable (stopped, its lease lost, its
 * conversation's store failed, waiting for a person): it is not over, and
 * shows no more here.
 */
function showUnrun(frame: Frame, calls: readonly Prepared[], e: unknown, ran = false): void {
  const { runtime } = frame;
  // (a store that failed the turn's own records ends it interrupted: resumable, as a lost lease)
  if (runtime.signal.aborted || isInstance(e, Suspend) || isTurnStop(e) || isStoreFailure(e, runtime.conversation)) return;
  const why = `${ran ? "it did not finish" : "it did not run"}: ${cappedErrorText(describeError(e))}`;
  // (only calls whose tool_call was shown: a replayed or unrunnable call showed none)
  for (const p of calls) if (p.called) showResult(frame, p, undefined, why);
}

/**
 * Whether a call of a reply paid anew (its request differed from the
 * recorded one) is the call this place's record settled: the same input, as
 * the tool reads it, as the one kept there (`kept`: a changing tool's
 * `started` record keeps it).
 * Undefined when that cannot be told: the record kept no input (a tool that
 * only reads, run again at no risk), or the call cannot be read now (the
 * model is told why, nothing runs).
 */
function sameCall(kept: { input: unknown } | undefined, tool: ToolLike | undefined, call: ToolCall): boolean | undefined {
  if (kept === undefined || tool === undefined || call.inputError !== undefined) return undefined;
  const parsed = readWith(tool.inputSchema, call.input);
  return "success" in parsed && parsed.success ? JSON.stringify(parsed.data ?? null) === JSON.stringify(kept.input ?? null) : undefined;
}

/**
 * Fails the call (`tool-failed`) when its input, as the tool reads it, is not
 * JSON: it is journaled (`started`), shown to a person (`waiting`, the
 * snapshot) and streamed, and one JSON cannot keep (a BigInt, a Map made by a
 * transform) would fail there or be kept as something else. The tool's schema
 * is at fault, not the model (which could only send it again), so the call
 * fails before anything is shown, asked or run.
 */
function checkKeepable(p: Prepared, input: unknown): void {
  const lost = notJson(input);
  if (lost !== undefined)
    throw new FunctaiError(
      "tool-failed",
      `${p.path}: its input schema gives a value JSON cannot keep (${lost}), and a tool's input is journaled, shown to a person and streamed; have the schema give JSON (a string or a number) and convert it in the tool's body`,
    );
}

/**
 * The call's decision, as made: a `run` has the input that runs, the one the
 * approve function was shown (a plugin's change was checked as it was made,
 * in decide). It is never read by the schema again here: a transform would
 * apply twice.
 */
function decided(p: Prepared, decision: Decision): Prepared {
  p.decision = decision;
  if (decision.kind === "refused" && decision.blocked) p.unrun = { code: "tool-blocked", by: decision.blocked.by, reason: decision.blocked.reason };
  return p;
}

/**
 * Whether this run is the first to settle the step of these calls, so it tells the plugins' `toolResult` of those
 * that never reach their tool (`unrun`): nothing of them is kept, so a run that replays the step knows them again,
 * and tells them only when it also settles the step first. It does when no earlier run's next request after the step
 * has its reply kept (`unsent`: this run paid for the reply, or one that paid for it died before its next reply was
 * kept, maybe before it told anyone), a plugin blocked a call now, or a call of the step runs or is refused now, where
 * an earlier run's step waited for a person (nothing of a step runs before its approvals are settled) or ended before
 * its calls ran. A step settled before (each call that ran has its `done`, a refusal was told) is not: its calls were
 * told then. (As a refusal is, one told by a run that died before its next request's reply was kept is told again.)
 */
function firstSettles(prepared: readonly Prepared[], unsent: boolean): boolean {
  if (unsent) return true;
  for (const { recorded, decision: d } of prepared)
    if ((!recorded && d?.kind === "run") || (d?.kind === "refused" && (d.refused !== undefined || d.blocked?.now))) return true;
  return false;
}

/**
 * The plugins' `toolResult` hooks: they may replace an output; a tool's error they only see (it stays an error).
 * Every plugin is shown the call, even after one failed (an audit log after a broken redactor still sees the refund
 * that went out; a tracer still ends its span), as the other hooks that watch an end are; the later ones are shown
 * the output as it stood, and the first failure is what the call fails with.
 */
async function afterHooks(
  frame: Frame,
  p: Prepared,
  input: unknown,
  outcome: { output: unknown } | { error: string; needsPerson?: StoppedForPerson },
): Promise<unknown> {
  let output = "output" in outcome ? outcome.output : undefined;
  let failure: { error: unknown } | undefined;
  for (const plugin of (frame.settings.plugins ?? []) as readonly Plugin[]) {
    try {
      output = await afterHook(frame, p, plugin, input, outcome, output);
    } catch (e) {
      failure ??= { error: e };
    }
  }
  if (failure) throw failure.error;
  return output;
}

/** One plugin's `toolResult` hook (see afterHooks): the output it leaves (`output`, or its replacement); `plugin-failed` when it breaks. */
async function afterHook(
  frame: Frame,
  p: Prepared,
  plugin: Plugin,
  input: unknown,
  outcome: { output: unknown } | { error: string; needsPerson?: StoppedForPerson },
  output: unknown,
): Promise<unknown> {
  const hook = plugin.hooks.toolResult;
  // (a call of no tool is told only as one that did not run: see unrunnable)
  if (!hook || (!p.tool && !p.unrun)) return output;
  // (each plugin its own copy of the output, the input and a stop's approvals: one that changes what it is shown in
  // place, a logger that redacts, changes nothing another is shown, nor what the model reads and the journal keeps;
  // an output is replaced only by returning { output })
  const shown =
    "error" in outcome
      ? { error: outcome.error, ...(outcome.needsPerson && { needsPerson: copyOf(outcome.needsPerson) }) }
      : { output: copyOf(output) };
  let changed: unknown;
  try {
    const approved = p.decision?.kind === "run" ? copyOf(p.decision.approved ?? null) : null;
    const told: PluginToolResult = { ...shownCall(frame, p, copyOf(input)), approved, ...shown };
    if (p.answered) told.answered = { ...p.answered };
    if (p.decision?.kind === "refused" && p.decision.refused) told.refused = { ...p.decision.refused };
    if (p.unrun) told.unrun = { ...p.unrun };
    changed = await hook(told);
  } catch (e) {
    throw new FunctaiError("plugin-failed", `plugin ${plugin.name} failed on the result of ${p.path}: ${describeError(e)}`, { cause: e });
  }
  if (changed === undefined || changed === null) return output;
  // anything else is refused, never ignored: a redacted output handed back bare would reach the model unredacted
  if (!hasKey(changed, "output"))
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin.name} answered ${describeValue(changed, 80)} on the result of ${p.path}: return undefined (keep it) or { output } (replace it)`,
    );
  const replaced = (changed as { output: unknown }).output;
  // so is one that replaces a refusal: the model reads it as it is in every run (it is not kept, and a run that replays
  // it tells no plugin), so another text now would reach the model here, and the refusal itself after a resume
  if (p.decision?.kind === "refused" && replaced !== output)
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin.name} replaced the refusal of ${p.path} with ${describeValue(replaced, 80)}: a refusal's toolResult only watches (the model reads the refusal as it is, in this run and any that resumes it); return undefined`,
    );
  return "output" in outcome ? replaced : output;
}

/** Of those, the codes of the turn's own stops a tool's own error may share: they stop it only when its own (isTurnStop). */
const TURN_STOPS: ReadonlySet<string> = new Set(["turn-unfinished", "lease-lost", "turn-claimed"]);

// the engine's own failures stop the turn at any depth: a journal that cannot be written is never a tool error the model sees
const PROPAGATE: ReadonlySet<string> = new Set([
  "turn-aborted",
  "turn-unfinished",
  "plugin-failed",
  "store-io",
  "store-conflict",
  "store-corrupt",
  "store-symlink",
  "lease-lost",
  "turn-claimed",
]);
/**
 * Whether `e`, thrown inside the turn `runtime` runs, stops that turn at any depth rather than failing
 * only the call that threw it: the turn waits for a person (`Suspend`), lost its lease, was stopped, or its journal
 * failed (a store code stops it only when functai's own call to its conversation's store threw it, `isStoreFailure`:
 * a tool that throws its own `store-io`, its database down, or meets another conversation's, failed as a tool does). A turn-aborted stops it only when it was stopped: one from a turn of its own that a tool's body ran
 * (another conversation's send given its own time limit) is that call's error. `within: "tool"` (a tool's
 * boundary: never shown to the model as the tool's error) also stops it for a broken plugin or approve function and
 * for an approval nobody can give; `within: "row"` (an evaluate row, where a call that fails fails only its row)
 * does not. Asked with isInstance: a thrown Proxy whose traps throw is a call's error, never a crash of the step.
 */
export function stopsTheTurn(e: unknown, runtime: Pick<TurnRuntime, "signal" | "conversation">, within: "tool" | "row"): boolean {
  if (isInstance(e, Suspend) || isInstance(e, LeaseLost)) return true;
  if (within === "tool" && isInstance(e, ApprovalError)) return true;
  if (!isInstance(e, FunctaiError)) return false;
  const { code } = e as FunctaiError;
  if (!PROPAGATE.has(code) || (within === "row" && code === "plugin-failed")) return false;
  // a store's code stops it only when its own journal failed: a tool's own (its database down, another conversation it
  // sent on) is that call's error, shown to the model as any other
  if (isStoreCode(code)) return isStoreFailure(e, runtime.conversation);
  // so too a turn's stop: a tool's body that resumes another conversation's turn, refused turn-claimed, failed as a tool
  if (TURN_STOPS.has(code)) return isTurnStop(e);
  return code !== "turn-aborted" || runtime.signal.aborted;
}

/**
 * Shows a call's `tool_result` (once: a replay does not show it again), with what its tool showed the person
 * (`ctx.show`), a copy of its own: a consumer that edits it changes neither the `done` record nor another's event.
 * A run's output is given as it was kept, a copy too (see `keptCopy`).
 */
function showResult(frame: Frame, p: Prepared, output?: unknown, error?: string, shown?: unknown[]): void {
  const { runtime, site } = frame;
  if (!runtime.streaming) return;
  runtime.unended.delete(p);
  const { invocation } = p;
  const { name } = p.call;
  const body: Extract<TurnEventBody, { type: "tool_result" }> =
    error === undefined ? { type: "tool_result", site, invocation, name, output } : { type: "tool_result", site, invocation, name, error };
  // (read again from their JSON, never walked: what JSON kept is as deep as the stack lets JSON go, deeper than a walk)
  if (shown !== undefined) body.shown = JSON.parse(JSON.stringify(shown)) as unknown[];
  runtime.emit(frame.path, body, `tool_result:${site}:${invocation}`);
}

/** A `done` record of a call, with what its tool showed the person. */
function doneBody(site: string, p: Prepared, shown: unknown[] | undefined): RecordBody {
  const done = toolBody(site, p, "done");
  if (shown !== undefined) done.shown = shown;
  return done;
}

/** The message of a call whose tool does not run now (settled by an earlier run, refused, or not runnable), else undefined. */
function settledMessage(frame: Frame, p: Prepared): Message | undefined {
  if (p.recorded) {
    return p.recorded.error === undefined ? toolMessage(p, outputText(p.recorded.output)) : toolMessage(p, `Error: ${p.recorded.error}`, true);
  }
  if (p.problem !== undefined) {
    showResult(frame, p, undefined, p.problem);
    return toolMessage(p, p.problem, true);
  }
  const decision = p.decision!;
  if (decision.kind === "refused") {
    showResult(frame, p, decision.text);
    return toolMessage(p, decision.text);
  }
  if (decision.kind === "pending") throw new Suspend([decision.approval]);
  return undefined;
}

/** The tool failed (it threw, or gave back what is not JSON): the model is told, or `tool-failed` with toolErrors "raise". */
async function failed(frame: Frame, p: Prepared, input: unknown, said: string, cause: unknown, shown?: unknown[]): Promise<Message> {
  // bounded wherever it goes (the model, the `done` record, the stream, the hooks, tool-failed): the tool's own error,
  // whole, stays the cause
  const message = cappedErrorText(said);
  const done = doneBody(frame.site, p, shown);
  done.error = message;
  void frame.runtime.journal.add(done);
  // (bounded as on a tool's output: a hook that never answers does not hold a stop for good; the failure is kept above)
  try {
    await new StopBound().race(afterHooks(frame, p, input, { error: message }), frame.runtime.signal);
  } finally {
    // shown also when a hook broke (the turn then fails plugin-failed): a stream that showed the call's `tool_call`
    // and never its `tool_result` left a UI showing it running for ever
    showResult(frame, p, undefined, message, shown);
  }
  if (frame.settings.toolErrors === "raise") throw new FunctaiError("tool-failed", `${p.path} failed: ${message}`, { cause });
  return toolMessage(p, `Error: ${message}`, true);
}

/**
 * A call that stops its turn for a person (it may have acted, or its
 * delegated turn needs a person) is still shown to the plugins' `toolResult`
 * hooks, with the reason as its error: it ran, and a trace (`otel()`) without
 * it would leave out the very call a person must look into. A hook that
 * fails here does not replace the stop: the turn must stay resumable.
 */
async function inDoubt(frame: Frame, p: Prepared, input: unknown, stop: NeedsPerson): Promise<void> {
  if (!frame.settings.plugins?.length) return;
  // `needsPerson` says it is a stop, not a failure (a call refused as its delegated conversation waits started no
  // delegated turn of its own a plugin could have seen end waiting: without it, only the error's text tells)
  const code = stop.code === "turn-waiting" ? "turn-waiting" : "turn-unfinished";
  const { waiting } = stop;
  const needsPerson: StoppedForPerson = waiting
    ? { code, conversation: waiting.conversation, approvals: waiting.approvals }
    : { code, approvals: [] };
  // (bounded: a hook that never answers does not hold the turn's stop for good)
  await new StopBound().race(afterHooks(frame, p, input, { error: stop.message, needsPerson }), frame.runtime.signal).catch(() => undefined);
}

async function execute(frame: Frame, p: Prepared): Promise<Message> {
  return toldAnswer(frame, p) ?? settledMessage(frame, p) ?? run(frame, p, p.decision as Extract<Decision, { kind: "run" }>);
}

/**
 * The message of a call an answer settled without running it (a result given, a refusal), shown to the plugins'
 * `toolResult` hooks first, when this run is the first to go on after that answer (else undefined).
 */
function toldAnswer(frame: Frame, p: Prepared): Promise<Message> | undefined {
  if (!frame.settings.plugins?.length) return undefined;
  if (p.recorded && p.answered?.kind === "given") return givenMessage(frame, p);
  if (p.decision?.kind === "refused" && (p.decision.refused || p.unrun)) return refusedMessage(frame, p, p.decision.text);
  if (p.unrun) return unrunMessage(frame, p);
  return undefined;
}

/**
 * The message of a call that cannot run (see unrunnable), shown to the plugins' `toolResult` hooks as the error the
 * model reads. They watch: the model reads the same text, as a run that replays the reply does (a hook's `{ output }`
 * replaces no error, as on a tool that failed).
 */
async function unrunMessage(frame: Frame, p: Prepared): Promise<Message> {
  const message = settledMessage(frame, p)!;
  await new StopBound().race(afterHooks(frame, p, p.call.input, { error: p.problem! }), frame.runtime.signal);
  return message;
}

/**
 * A call a person answered with what it returned (`given`), as this run first goes on after that answer: the
 * plugins' `toolResult` hooks are shown it (`answered`; the tool did not run, so nothing else was), and may replace
 * the output the model reads, as for a tool that ran: what the model reads is kept (a `done` record after the
 * `given`), so a later run replays it, and is not told of the answer again.
 */
async function givenMessage(frame: Frame, p: Prepared): Promise<Message> {
  const { runtime, site } = frame;
  const given = p.recorded!.output;
  const input = runtime.journal.toolInput(site, p.invocation)?.input ?? p.call.input;
  const output = await new StopBound().race(afterHooks(frame, p, input, { output: given }), runtime.signal);
  if (output === given) {
    keepGiven(frame, p, given);
    return toolMessage(p, outputText(given));
  }
  const json = outputJson(output);
  if ("why" in json) throw new FunctaiError("plugin-failed", `a plugin changed the output of ${p.path} into one that is not JSON (${json.why})`);
  const { text } = json;
  const kept = keptValue(output, text);
  keepGiven(frame, p, kept);
  return toolMessage(p, readAs(kept, text));
}

/**
 * A `done` record after a person's `given`, with the output the model reads: this run went on after that answer, so
 * a run that replays it tells no plugin again, even when this one dies before the next request's reply is kept (the
 * record is written before that request is sent).
 */
function keepGiven(frame: Frame, p: Prepared, kept: unknown): void {
  const done = doneBody(frame.site, p, undefined);
  done.output = kept;
  void frame.runtime.journal.add(done);
}

/**
 * A call an answer refused, as this run first goes on after that answer, or a plugin's `toolCall` blocked in this run:
 * the plugins' `toolResult` hooks are shown the refusal the model reads (`output`), with who refused it and why
 * (`refused`, or `unrun` for a block). They watch: the model reads the
 * refusal as it is (a run that replays it tells them nothing, and the model must read the same then); a hook that
 * replaces it fails the call (`plugin-failed`, see afterHook), never dropped without a word.
 */
async function refusedMessage(frame: Frame, p: Prepared, text: string): Promise<Message> {
  const message = settledMessage(frame, p)!;
  const input = (p.decision as { input?: unknown }).input ?? p.call.input;
  await new StopBound().race(afterHooks(frame, p, input, { output: text }), frame.runtime.signal);
  return message;
}

/**
 * What the journal keeps of a tool's output: its JSON (`text`, already made)
 * read back, never the tool's own objects. A tool often returns objects it
 * goes on changing (a cache entry, a shared list): kept by reference, a
 * store in memory (or a flush that comes later in the step) would keep
 * what they became, and a resumed turn would show the model that.
 */
function keptValue(output: unknown, text: string): unknown {
  if (output === undefined || output === null) return null;
  return typeof output === "object" ? JSON.parse(text) : output;
}

/**
 * What the model reads of a kept output: what a resumed turn reads back from the `done` record (`outputText`).
 * An object whose JSON is a string (a Date, a URL, a boxed String) is kept as that string, and read back without
 * JSON's quotes: shown with them first, the resumed request differed from the one sent, and its recorded reply
 * was paid for again (and its tool calls made anew).
 */
const readAs = (kept: unknown, text: string): string => (typeof kept === "string" ? kept : text);

/**
 * What a stream's `tool_result` shows of a run's output: the kept output (the model's one reading of it, what the
 * `done` record keeps), an object read again from its JSON `json` as a copy of its own; never the tool's own object,
 * which it may go on changing (a getter read again, a Date where the model read its text). Undefined when the tool
 * returned nothing.
 */
const keptCopy = (output: unknown, kept: unknown, json: string): unknown =>
  output === undefined ? undefined : typeof kept === "object" && kept !== null ? JSON.parse(json) : kept;

/** Runs a call's tool, journaling it (a changing tool's start kept before it runs), and hands back its message. */
async function run(frame: Frame, p: Prepared, decision: Extract<Decision, { kind: "run" }>): Promise<Message> {
  const runtime = frame.runtime;
  const { site } = frame;
  const tool = p.tool!;
  const input = decision.input as Record<string, unknown>;
  const leafChange = !tool.composite && changesThings(tool.toolEffects);
  try {
    const checked = runtime.beforeEffect();
    if (checked) await checked;
    // the journal keeps a changing tool's start before it runs: a crash after this is "unfinished", never re-run on its own
    if (leafChange) {
      const started = toolBody(site, p, "started");
      started.input = input;
      started.effects = tool.toolEffects;
      await runtime.journal.add(started, true);
      // the durable write is the longest wait before the side effect: a holder paused there (a suspended VM, a long GC)
      // may wake after another process took the turn (and a person had it rerun). Asked again here, it never runs the
      // tool on a lease (or a database session's lock) lost meanwhile
      const again = runtime.beforeEffect(true);
      if (again) await again;
    }
  } catch (e) {
    // refused before it ran (its run already ended): its shown call ends here (a store that refused its `started`: resumable, it does not)
    showUnrun(frame, [p], e);
    throw e;
  }
  const inner = childFrame(frame, p.call.name, frame.settings, p.invocation);
  const ctx = new ToolCallContext(runtime, p.invocation, p.path, site, inner);

  let output: unknown;
  // the plugins' toolRun hooks run around the body; one that breaks their rules fails the call (plugin-failed) once
  // what the tool did is kept as below; one that never let it run leaves a changing tool's `started` followed by `rerun`
  const around: ToolRunWatch = { ran: false };
  const bound = new StopBound();
  const body = (): Promise<unknown> => frameCarrier.run(inner, () => tool.runAsTool(input, ctx));
  // under toolRun hooks, the output is read at the tool's boundary, as the body gave it: a hook hands back the very
  // object run() gave it, and one that edited it in place (a tracer redacting what it records) silently changed what
  // the model read and the journal kept. (No such hook: the output is read at once below, as before.)
  let atBoundary: { value: unknown; json: { text: string } | { why: string } } | undefined;
  const hooked = frame.settings.plugins?.some((plugin) => (plugin as Plugin).hooks.toolRun !== undefined) === true;
  try {
    output = await bound.race(
      aroundTool(
        frame,
        () => shownCall(frame, p, input),
        hooked
          ? () =>
              Promise.resolve(body()).then((value) => {
                atBoundary = { value, json: outputJson(value) };
                return value;
              })
          : body,
        around,
        // (a hook may wait before it lets the tool run: a changing tool asks for its lease again then, as above)
        leafChange ? () => runtime.beforeEffect(true) : undefined,
      ),
      runtime.signal,
    );
  } catch (e) {
    // the turn was stopped and the tool ignored its signal past the grace: the stop settles without it. Nothing is
    // written for the call, now or when it settles later in this process (its outcome goes nowhere: the journal never
    // gains a `done` after the turn's end): a changing tool stays `started`, unfinished for a person (as after a
    // crash), and a reading one is not recorded
    if (bound.gaveUp) throw e;
    if (!around.ran) {
      // (a run that lost its lease meanwhile writes nothing more: its `started` stays, as above)
      if (leafChange && !isInstance(e, LeaseLost)) void runtime.journal.add(toolBody(site, p, "rerun"));
      showUnrun(frame, [p], e);
      throw e;
    }
    const forPerson = ctx.returned();
    // a person is asked inside the tool's body (an AI function it calls): it did not finish, and on resume it is
    // entered again, its inner calls replaying; without this its `started` would leave it "unfinished" for good
    if (leafChange && isInstance(e, Suspend)) void runtime.journal.add(toolBody(site, p, "rerun"));
    // the turn stops for a person, resumable: what it learned is kept first (replies not paid again, tools done not run again)
    if (isInstance(e, NeedsPerson)) {
      await runtime.journal.flush();
      await inDoubt(frame, p, input, e as NeedsPerson);
    }
    if (stopsTheTurn(e, runtime, "tool")) {
      const stop = isInstance(e, LeaseLost) || runtime.signal.aborted ? e : (around.broken ?? e);
      // (a nested call's broken plugin or journal, inside its body: the call did not finish, and its stream says so)
      showUnrun(frame, [p], stop, true);
      throw stop;
    }
    return unlessBroken(around, failed(frame, p, input, thrownText(e), e, forPerson));
  }
  const forPerson = ctx.returned();
  // checked here, at the tool's boundary: what cannot be kept never reaches the journal (nor the batch with the model's reply)
  // (what the model reads, or why it cannot, from one writing of the output: see outputJson)
  const written = atBoundary !== undefined && Object.is(atBoundary.value, output) ? atBoundary.json : outputJson(output);
  if ("why" in written) {
    const why = `its output is not JSON (${written.why})`;
    // a changing tool did what it does (the refund went out): told only that its output is not JSON, a model reads
    // it as a call that failed and makes it again. Its error (the model's message, its `done` record) says it ran.
    // So too a program or AI function called as a tool that may change things: the calls inside it ran (its refund)
    return unlessBroken(
      around,
      failed(
        frame,
        p,
        input,
        changesThings(tool.toolEffects)
          ? `${why}: it ran, and its result could not be kept nor shown. It did run: do not call it again to see its result`
          : `${why}; return plain data`,
        undefined,
        forPerson,
      ),
    );
  }
  let json = written.text;
  let kept = keptValue(output, json);
  let text = readAs(kept, json);
  if (frame.settings.plugins?.length) {
    // the plugins are shown that one reading of the output (as the model reads it), never the tool's live objects:
    // a getter read again may give something else, or throw; a plugin that changes it in place changes its own copy
    // (afterHooks shows each plugin its own copy of it: `kept`, what the journal keeps, is never changed by a hook)
    const shown = output === undefined ? undefined : kept;
    try {
      // (bounded as the tool's run is: a hook that never answers does not hold a stop for good; the tool did finish,
      // and its `done` is kept below with what it returned)
      output = await new StopBound().race(afterHooks(frame, p, input, { output: shown }), runtime.signal);
      const changed = outputJson(output);
      if ("why" in changed)
        throw new FunctaiError("plugin-failed", `a plugin changed the output of ${p.path} into one that is not JSON (${changed.why})`);
      text = json = changed.text;
    } catch (e) {
      // the tool did run: keep that, so it is never run again; a broken plugin fails the call, it is not the tool's error
      const done = doneBody(site, p, forPerson);
      done.output = kept;
      void runtime.journal.add(done);
      // and shown, as kept: a stream that showed the call's `tool_call` must show how it ended (see failed)
      showResult(frame, p, keptCopy(shown, kept, json), undefined, forPerson);
      throw e;
    }
    kept = keptValue(output, text);
    text = readAs(kept, text);
  }
  const done = doneBody(site, p, forPerson);
  done.output = kept;
  void runtime.journal.add(done);
  if (runtime.streaming) showResult(frame, p, keptCopy(output, kept, json), undefined, forPerson);
  if (around.broken) throw around.broken;
  return toolMessage(p, text);
}

/** The call as a `toolRun` or `toolResult` hook is shown it (made only when a plugin has such a hook). */
const shownCall = (frame: Frame, p: Prepared, input: unknown): PluginToolCall => {
  const kind = toolKind(p.tool);
  return {
    name: p.call.name,
    input,
    effects: p.tool?.toolEffects ?? null,
    path: p.path,
    site: frame.site,
    invocation: p.invocation,
    turn: frame.runtime.turn,
    id: p.call.id,
    attempt: frame.runtime.journal.attempt,
    ...(kind !== undefined && { kind }),
  };
};

const KINDS = new Set(["tool", "mcp", "ai", "program"]);
/** What a tool is, as the hooks are told (`PluginToolCall.kind`): one of the four, else none (a tool made elsewhere may say anything). */
const toolKind = (tool: ToolLike | undefined): ToolLike["kind"] => {
  const kind = (tool as { kind?: unknown } | undefined)?.kind;
  return typeof kind === "string" && KINDS.has(kind) ? (kind as ToolLike["kind"]) : undefined;
};

/** A failed tool's message (kept and shown as without hooks), unless a `toolRun` hook broke its rules: then the call fails with that. */
async function unlessBroken(around: ToolRunWatch, message: Promise<Message>): Promise<Message> {
  let result: Message;
  try {
    result = await message;
  } catch (e) {
    throw around.broken ?? e;
  }
  if (around.broken) throw around.broken;
  return result;
}

/**
 * Runs one reply's tool calls. Every call the model made gets a result
 * message, in the order it made them, whatever happened to it. Approvals of
 * the whole step are settled before any of its tools runs. `anew`: the reply
 * was paid in this run (its request was sent), not replayed from the records. `unsent`: no earlier run kept the reply
 * to the request after this step (see firstSettles).
 */
export function runToolCalls(
  frame: Frame,
  calls: readonly ToolCall[],
  tools: ReadonlyMap<string, ToolLike>,
  anew: boolean,
  unsent: boolean,
): Message[] | Promise<Message[]> {
  const prepared: Prepared[] = [];
  try {
    for (const call of calls) {
      const p = prepare(frame, call, tools, anew);
      // a decision to wait for: the rest is prepared once it is made, one call at a time as here
      if (p instanceof Promise) return prepareRest(frame, calls, tools, anew, unsent, prepared, p);
      prepared.push(p);
    }
  } catch (e) {
    // a call the model made after them cannot be run (see prepare): those shown before it never run either
    showUnrun(frame, prepared, e);
    throw e;
  }
  // a step whose calls were settled by an earlier run (a replay) is answered without a promise
  return runPrepared(frame, prepared, unsent);
}

async function prepareRest(
  frame: Frame,
  calls: readonly ToolCall[],
  tools: ReadonlyMap<string, ToolLike>,
  anew: boolean,
  unsent: boolean,
  prepared: Prepared[],
  next: Promise<Prepared>,
): Promise<Message[]> {
  try {
    prepared.push(await next);
    for (let i = prepared.length; i < calls.length; i++) {
      const p = prepare(frame, calls[i]!, tools, anew);
      prepared.push(p instanceof Promise ? await p : p);
    }
  } catch (e) {
    showUnrun(frame, prepared, e);
    throw e;
  }
  return runPrepared(frame, prepared, unsent);
}

const merged = (e: unknown): unknown => (e instanceof Suspend ? Suspend.merge([e]) : e);

function runPrepared(frame: Frame, prepared: readonly Prepared[], unsent: boolean): Message[] | Promise<Message[]> {
  let pending: Approval[] | undefined; // (no list made for a step that waits for nobody)
  let unrun = false;
  for (const p of prepared) {
    if (p.decision?.kind === "pending") (pending ??= []).push(p.decision.approval);
    unrun ||= p.unrun !== undefined;
  }
  // (told by the run that settles the step first: see firstSettles)
  if (unrun && !firstSettles(prepared, unsent)) for (const p of prepared) delete p.unrun;
  if (pending !== undefined) {
    // a plain call has nobody to ask: refuse before anything of this step runs
    if (frame.runtime.mode === "plain") throw new ApprovalError(pending[0]!.path);
    // the `approval` events are shown by the runner once the whole turn waits (see turn/session.ts)
    throw new Suspend(pending);
  }
  if (prepared.length !== 1) return settleAll(frame, prepared);
  // one call (most steps): its outcome as settleAll gives it, without settling a list
  const p = prepared[0]!;
  let message: Message | undefined;
  let told: Promise<Message> | undefined;
  try {
    told = toldAnswer(frame, p);
    message = told ? undefined : settledMessage(frame, p);
  } catch (e) {
    throw merged(e);
  }
  if (message !== undefined) return [message];
  return (told ?? run(frame, p, p.decision as Extract<Decision, { kind: "run" }>)).then(
    (m) => [m],
    (e: unknown) => {
      throw merged(e);
    },
  );
}

async function settleAll(frame: Frame, prepared: readonly Prepared[]): Promise<Message[]> {
  const settled = await Promise.allSettled(prepared.map((p) => execute(frame, p)));
  const suspends: Suspend[] = [];
  let failure: unknown;
  const messages: Message[] = [];
  for (const s of settled) {
    if (s.status === "fulfilled") messages.push(s.value);
    else if (s.reason instanceof Suspend) suspends.push(s.reason);
    else failure ??= s.reason;
  }
  if (failure !== undefined) {
    // what the step's other calls did is kept before the failure ends the turn: a changing tool that ran and finished
    // beside a call whose `started` the store refused (store-io) left its `done` queued, and the turn, let go without
    // an `ended` record, dropped it: resumed, it read unfinished and a person was asked about a call that had finished.
    // (Best effort: the failure is what is reported; a lost lease's fence refuses these writes, as it should.)
    if (messages.length > 0) await frame.runtime.journal.flush(true).catch(() => undefined);
    throw failure;
  }
  if (suspends.length > 0) throw Suspend.merge(suspends);
  return messages;
}
