/**
 * What a person says of a turn, as functions over its log: approve or deny
 * its waiting approvals, give results or reruns for its unfinished tools,
 * or abandon it. Each is one conditional append (an approval is answered
 * once; of processes resuming at once, one records its answers).
 */
import type { Approval } from "../approval/types.js";
import { outputNotJson } from "../engine/tool-boundary.js";
import { ConversationError, describeError, describeValue, isFunctaiError } from "../errors.js";
import { approvalKey, unfinishedOf, type UnfinishedTool } from "../records/keys.js";
import { makeRecord } from "../records/make.js";
import type { ConversationState, TurnInfo } from "../records/read-conversation.js";
import type { Lease } from "./lease.js";
import type { ConversationLog } from "./log.js";
import { approvalOf } from "./waiting.js";
import { isRecord } from "../runtime/values.js";

/** What a person says of each unfinished tool, by invocation (or `"site:invocation"`). */
export interface ResumeOptions {
  /** It did run: this is what it returned. */
  results?: Record<string | number, unknown>;
  /** It did not: run it again. */
  rerun?: readonly (number | string)[];
}

/** A turn as an answer found it: its state then, and the conversation's length after the answer. */
export interface Answered {
  state: ConversationState;
  info: TurnInfo;
  length: number;
}

/** The turn `turn` in `state`, or `turn-state`. */
export function turnIn(state: ConversationState, log: ConversationLog, turn: string): TurnInfo {
  const info = state.turns.get(turn);
  if (!info) throw new ConversationError("turn-state", `turn ${turn} is not in conversation ${log.id}`);
  return info;
}

/**
 * The error for a turn another process goes on with (the one that began it,
 * or one that resumed it first). `refused` names what is refused when it is
 * not a resume (an abandon): the turn then runs elsewhere, whatever attempt.
 */
export function claimedElsewhere(info: TurnInfo, refused?: string): ConversationError {
  const until = info.leaseUntil ? `, lease until ${info.leaseUntil}` : "";
  const holder = `${info.holder ?? "unknown holder"}${until}`;
  if (refused !== undefined) {
    const attempt = info.attempt > 1 ? `attempt ${info.attempt}, ` : "";
    return new ConversationError(
      "turn-claimed",
      `turn ${info.id} is running elsewhere (${attempt}${holder}): it goes on there, so it is not ${refused} here`,
    );
  }
  const who = info.attempt > 1 ? "was resumed elsewhere first" : "is running elsewhere";
  return new ConversationError("turn-claimed", `turn ${info.id} ${who} (${holder}): it goes on there, not here`);
}

/** The error for a turn whose holder is alive but stalled (paused past its lease): nobody may claim it. */
export function stalledError(info: TurnInfo): ConversationError {
  return new ConversationError(
    "turn-state",
    `turn ${info.id} is stalled: its lease ran out (${info.leaseUntil ?? "no lease"}) but its holder (${info.holder ?? "unknown"}) is a process on this host that is still alive (paused or busy): it goes on when it wakes, so it cannot be resumed here; abandon() it to end it`,
  );
}

/** A person's yes or no to one waiting approval (`id`), or to all. */
export interface Answer {
  verdict: "yes" | "no";
  by: string | null;
  reason: string | null;
  id?: string | undefined;
  /** An answer to all of those a stream showed (by id): never to one the turn asked for since, unseen. */
  among?: ReadonlySet<string> | undefined;
}

/**
 * Records a yes or no to one waiting approval (`id`), or all, conditionally:
 * an approval is answered once. With `claim` (an answer to all of them, the
 * turn going on here) the same append holds the claim's lease record, after
 * the answers: answered and claimed at once, one write.
 */
export async function recordAnswer(
  log: ConversationLog,
  turn: string,
  answer: Answer,
  claim?: Lease,
  /** Asked when the answer leaves nothing waiting (the turn goes on in this process): what it throws refuses the answer, nothing written. */
  goesOn?: (info: TurnInfo) => void,
): Promise<Answered & { chosen: Approval[] }> {
  const { verdict, by, reason, id, among } = answer;
  let attempt = 0;
  const { value, length } = await log.appendIf(
    async (view) => {
      attempt = 0;
      const state = await view.state();
      const info = turnIn(state, log, turn);
      const waiting = info.waiting.map(approvalOf);
      const chosen = id !== undefined ? waiting.filter((a) => a.id === id) : among ? waiting.filter((a) => among.has(a.id)) : waiting;
      if (info.state !== "waiting" || chosen.length === 0) {
        const answeredIds = new Set(info.answers.map((a) => approvalKey(a.site, a.invocation, a.plugin)));
        const answered = id !== undefined ? answeredIds.has(id) : among ? [...among].some((a) => answeredIds.has(a)) : info.answers.length > 0;
        // an answer to those shown, when the turn waits on others asked since: say what, so they are read before answered
        const since =
          among && info.state === "waiting" && waiting.length > 0
            ? `; it waits now on ${waiting.map((a) => `${a.path} #${a.invocation}`).join(", ")}, asked since: read the turn again (a handle's refresh()) and answer those`
            : "";
        if (answered && (info.state === "waiting" || info.state === "running" || info.state === "done" || info.state === "interrupted"))
          throw new ConversationError("approval-answered", `turn ${turn}: ${id ?? "its approvals"} already answered${since}`);
        if (info.state !== "waiting") throw new ConversationError("turn-state", `turn ${turn} is ${info.state}, not waiting for an answer`);
        const asked = id !== undefined ? id : among ? `among those shown (${[...among].join(", ") || "none"})` : "";
        throw new ConversationError("approval-unknown", `turn ${turn} has no waiting approval ${asked}`.trimEnd() + since);
      }
      if (goesOn && chosen.length === waiting.length) goesOn(info);
      const now = log.clock.now();
      const append: object[] = chosen.map((a) =>
        makeRecord("approval", { turn, site: a.site, invocation: a.invocation, plugin: a.plugin ?? null, path: a.path, verdict, by, reason }, now),
      );
      // (a waiting turn is claimed by nobody: its last lease is the latest attempt)
      if (claim !== undefined && chosen.length === waiting.length) append.push(claim.record((attempt = info.attempt + 1)));
      return { append, value: { state, info, chosen } };
    },
    { maxTries: 100 },
  );
  if (attempt > 0) claim!.won(attempt);
  return { ...value, length };
}

/** The keys a person may name a tool call by: its invocation alone, or `"site:invocation"`. */
const keysOf = (t: { site: string; invocation: number }): [string, string] => [String(t.invocation), `${t.site}:${t.invocation}`];

/** A result as the journal keeps it (JSON read back; left out, `null`). */
const kept = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null)) as unknown;

/** Whether two JSON values are the same, whatever the order of their keys (a store may keep an object's keys in its own order). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const ka = Object.keys(a);
  const bo = b as Record<string, unknown>;
  return ka.length === Object.keys(bo).length && ka.every((k) => Object.hasOwn(bo, k) && sameJson((a as Record<string, unknown>)[k], bo[k]));
}

/**
 * Refuses what a person said that names no tool call of the turn (a typo,
 * another turn's number: it would be dropped while they believe it said),
 * or gives one call both a result and a rerun. A call already settled may be
 * named (another process may have settled it meanwhile): only unfinished
 * calls need an answer.
 */
function checkAnswers(
  turn: string,
  info: TurnInfo,
  unfinished: UnfinishedTool[],
  results: Record<string, unknown>,
  rerun: ReadonlySet<string>,
): void {
  const known = new Set<string>();
  for (const t of info.tools.values()) for (const k of keysOf(t)) known.add(k);
  const stray = [...Object.keys(results), ...rerun].find((k) => !known.has(k));
  if (stray !== undefined) {
    const open = unfinished.map((t) => `${t.name} (${t.invocation}, or "${t.site}:${t.invocation}")`).join(", ") || "none";
    throw new ConversationError(
      "input-invalid",
      `turn ${turn}: ${JSON.stringify(stray)} names no tool call of this turn (its unfinished tools: ${open}); nothing was written`,
    );
  }
  const both = unfinished.find((t) => keysOf(t).some((k) => k in results) && keysOf(t).some((k) => rerun.has(k)));
  if (both)
    throw new ConversationError(
      "input-invalid",
      `turn ${turn}: ${both.name} (invocation ${both.invocation}) is given both a result and a rerun: say one; nothing was written`,
    );
  // a result is kept in the journal and read back by every resume: one JSON cannot keep (a BigInt, a cycle, a Map)
  // would be kept by a memory store and fail the resumed run for good, or come back as something else. Checked for
  // every call named (one another person answered meanwhile is compared with their answer below, as JSON)
  for (const t of info.tools.values()) {
    for (const key of keysOf(t)) {
      const why = key in results ? outputNotJson(results[key]) : undefined;
      if (why !== undefined)
        throw new ConversationError(
          "input-invalid",
          `turn ${turn}: the result given for ${t.name} (invocation ${t.invocation}) cannot be kept as JSON (${why}); give what it returned as JSON; nothing was written`,
        );
    }
  }
  // an unfinished call named by its invocation and by its site, with two results: one would be taken, the other
  // dropped unsaid (a settled call's result is not taken: its bare invocation may be meant for another call's)
  const twice = unfinished.find((t) => {
    const [bare, sited] = keysOf(t);
    return bare in results && sited in results && !sameJson(kept(results[bare]), kept(results[sited]));
  });
  if (twice)
    throw new ConversationError(
      "input-invalid",
      `turn ${turn}: ${twice.name} (invocation ${twice.invocation}) is given two results, as ${twice.invocation} and as "${twice.site}:${twice.invocation}": say one; nothing was written`,
    );
  // a call another person answered meanwhile (their resume wrote its answer first): the same answer stands, another is
  // refused. Taken silently, this resume could win the claim and go on with their answer, not the one given here.
  // The same answer is the same JSON, whatever the order of its keys (a store may keep them in its own: jsonb)
  for (const t of info.tools.values()) {
    if (t.state !== "given" && t.state !== "rerun") continue;
    const mine = keysOf(t).find((k) => k in results || rerun.has(k));
    if (mine === undefined) continue;
    const same = rerun.has(mine)
      ? t.state === "rerun"
      : t.state === "given" && sameJson(JSON.parse(JSON.stringify(results[mine] ?? null)) as unknown, t.output ?? null);
    if (!same)
      throw new ConversationError(
        "turn-state",
        `turn ${turn}: ${t.name} (invocation ${t.invocation}) was already answered by another resume (${t.state === "rerun" ? "a rerun" : `its result ${describeValue(t.output, 80)}`}): that answer stands; nothing was written`,
      );
  }
  checkFinished(turn, info, unfinished, results, rerun);
}

/**
 * A result or rerun given for a call that finished (its `done` recorded, so it is not unfinished): dropped, the
 * person would be told nothing while the model is shown what the journal holds. The same result as recorded is
 * taken as said; another, or a rerun, is refused. A key that also names an unfinished call (a bare invocation
 * shared across depths) or one answered by a resume is that call's, checked above.
 */
function checkFinished(
  turn: string,
  info: TurnInfo,
  unfinished: UnfinishedTool[],
  results: Record<string, unknown>,
  rerun: ReadonlySet<string>,
): void {
  const open = new Set(unfinished.flatMap((t) => keysOf(t)));
  for (const t of info.tools.values()) if (t.state !== "done") for (const k of keysOf(t)) open.add(k);
  for (const t of info.tools.values()) {
    if (t.state !== "done") continue;
    for (const key of keysOf(t)) {
      if (open.has(key)) continue;
      const recorded = t.error !== undefined ? `it failed: ${describeValue(t.error, 80)}` : `its result ${describeValue(t.output ?? null, 80)}`;
      const refused = rerun.has(key)
        ? "it is not run again"
        : key in results && !sameJson(kept(results[key]), t.output ?? null)
          ? `the result given (${describeValue(results[key], 80)}) is not what it returned`
          : null;
      if (refused)
        throw new ConversationError(
          "turn-state",
          `turn ${turn}: ${t.name} (invocation ${t.invocation}) finished (${recorded}), so ${refused}; give results only for its unfinished tools; nothing was written`,
        );
    }
  }
}

/**
 * What is wrong with a result given for an unfinished call, as its tool checks results (see `ToolLike.checkResult`),
 * else `null`; a tool not known here (a program's) checks nothing.
 */
export type ResultCheck = (call: UnfinishedTool, output: unknown) => string | null;

/** Refuses a result its tool says it could not have returned (an MCP tool's output schema), with nothing written. */
function checkResults(turn: string, unfinished: UnfinishedTool[], results: Record<string, unknown>, check: ResultCheck): void {
  for (const t of unfinished) {
    const key = keysOf(t).find((k) => k in results);
    if (key === undefined) continue;
    let problem: string | null;
    try {
      problem = check(t, kept(results[key]));
    } catch (e) {
      problem = `its tool's check of it threw: ${describeError(e)}`;
    }
    if (problem !== null)
      throw new ConversationError(
        "input-invalid",
        `turn ${turn}: the result given for ${t.name} (invocation ${t.invocation}) cannot be its result: ${problem}; nothing was written`,
      );
  }
}

/** The answer of a person for each unfinished tool, or `turn-unfinished` naming those without one. */
function toolRecords(turn: string, info: TurnInfo, options: ResumeOptions, now: number, check?: ResultCheck): object[] {
  const unfinished = unfinishedOf(info);
  const results = options.results ?? {};
  if (!isRecord(results) || !Array.isArray(options.rerun ?? []))
    throw new ConversationError(
      "input-invalid",
      `turn ${turn}: resume takes { results: { <invocation>: <what it returned> }, rerun: [<invocation>, …] }`,
    );
  const rerun = new Set((options.rerun ?? []).map(String));
  checkAnswers(turn, info, unfinished, results, rerun);
  // a bare invocation number names a tool call only when one unfinished call has it (calls at other depths count from 1 too)
  const shared = new Set(unfinished.map((t) => t.invocation).filter((n, i, all) => all.indexOf(n) !== i));
  const ambiguous = unfinished.filter((t) => shared.has(t.invocation) && (String(t.invocation) in results || rerun.has(String(t.invocation))));
  if (ambiguous.length > 0)
    throw new ConversationError(
      "turn-unfinished",
      `turn ${turn}: invocation ${ambiguous[0]!.invocation} names ${ambiguous
        .filter((t) => t.invocation === ambiguous[0]!.invocation)
        .map((t) => `${t.name} at "${t.site}:${t.invocation}"`)
        .join(
          " and ",
        )}: name each by its site, e.g. resume({ results: { "${ambiguous[0]!.site}:${ambiguous[0]!.invocation}": <what it returned> } })`,
    );
  const open = unfinished.filter((t) => !keysOf(t).some((k) => k in results || rerun.has(k)));
  if (open.length > 0) {
    const keyFor = (t: UnfinishedTool): string => (shared.has(t.invocation) ? JSON.stringify(`${t.site}:${t.invocation}`) : String(t.invocation));
    const parts = open.map(
      (t) =>
        `${t.name} (invocation ${t.invocation}${shared.has(t.invocation) ? ` at ${t.site}` : ""}) started and may have run: resume({ results: { ${keyFor(t)}: <what it returned> } }) or resume({ rerun: [${keyFor(t)}] })`,
    );
    throw new ConversationError("turn-unfinished", `turn ${turn}: ${parts.join("; ")}`);
  }
  if (check) checkResults(turn, unfinished, results, check);
  return unfinished.map((t) => {
    const key = keysOf(t).find((k) => k in results);
    const base = { turn, site: t.site, invocation: t.invocation, name: t.name, path: t.path };
    return makeRecord("tool", key !== undefined ? { ...base, state: "given", output: results[key] ?? null } : { ...base, state: "rerun" }, now);
  });
}

/**
 * Refuses results or reruns given for a turn that waits for a person's approvals (its stream answers those): it
 * has no tool in doubt to say them of (a call that waits for a yes has not run), and taken, they were dropped
 * without a word while the stream went on asking. `resume()` refuses such a turn whatever it is given (it waits).
 */
export function refuseToolAnswers(turn: string, info: TurnInfo, options: ResumeOptions): void {
  const { results, rerun } = options;
  const said =
    (results !== undefined && (!isRecord(results) || Object.keys(results).length > 0)) ||
    (rerun !== undefined && (!Array.isArray(rerun) || rerun.length > 0));
  if (!said) return;
  const asked = info.waiting.map((a) => `${a.path} #${a.invocation}`).join(", ");
  throw new ConversationError(
    "input-invalid",
    `turn ${turn} waits for a person's answer (${asked}): no tool of it may have run, so it takes no results or reruns; answer it in its stream (s.approve(), s.deny()); nothing was written`,
  );
}

/**
 * Records what a person said of each unfinished tool (conditionally); the
 * turn as it then stood, and the conversation's length after (what the
 * turn's claim expects). A turn that still waits for approvals is refused
 * with `waiting()`; one another process goes on with, `turn-claimed`.
 */
export async function recordResults(
  log: ConversationLog,
  turn: string,
  options: ResumeOptions,
  waiting: (state: ConversationState, info: TurnInfo) => Error,
  /** Asked of a turn that may go on, before anything is written: what it throws refuses the resume (no model here). */
  goesOn?: (info: TurnInfo) => void,
  check?: ResultCheck,
): Promise<Answered> {
  let seenAttempt: number | undefined;
  let last: TurnInfo | undefined;
  try {
    const { value, length } = await log.appendIf(
      async (view) => {
        const state = await view.state();
        const info = (last = turnIn(state, log, turn));
        if (info.stalled) throw stalledError(info);
        if (info.state === "running" || (seenAttempt !== undefined && info.attempt > seenAttempt)) throw claimedElsewhere(info);
        seenAttempt = info.attempt;
        if (info.state === "waiting" && info.waiting.length > 0) throw waiting(state, info);
        if (info.state !== "interrupted" && info.state !== "waiting")
          throw new ConversationError("turn-state", `turn ${turn} is ${info.state}: only an interrupted turn (or an answered waiting one) resumes`);
        goesOn?.(info);
        return { append: toolRecords(turn, info, options, log.clock.now(), check), value: { state, info } };
      },
      { maxTries: 21 },
    );
    return { ...value, length };
  } catch (e) {
    // processes that kept losing the race to record their answers: another goes on with the turn
    if (isFunctaiError(e, "store-conflict") && last) throw last.stalled ? stalledError(last) : claimedElsewhere(last);
    throw e;
  }
}

/** How `endTurn` ends a turn: abandoned by a person, or stopped by the stream that showed its wait. */
type End = { state: "abandoned" } | { state: "stopped"; error: { code: "turn-aborted"; message: string } };

/**
 * Ends a turn that no process runs with an `ended` record, in one
 * conditional append: a turn another process claimed meanwhile is never
 * ended under it (`turn-claimed`), and `endable` refuses, on the turn as the
 * append finds it, one that may not end so.
 */
async function endTurn(log: ConversationLog, turn: string, end: End, endable: (info: TurnInfo) => void): Promise<void> {
  await log.appendIf(
    async (view) => {
      const info = turnIn(await view.state(), log, turn);
      if (info.state === "running" && !info.stalled) throw claimedElsewhere(info, end.state);
      endable(info);
      return { append: [makeRecord("ended", { turn, ...end, attempt: info.attempt }, log.clock.now())], value: undefined };
    },
    { maxTries: 21 },
  );
}

/**
 * Ends a waiting, interrupted or stalled turn without going on
 * (conditionally: a turn another process claimed meanwhile is not ended
 * under it). A stalled holder that wakes finds the end and stops.
 */
export function abandonTurn(log: ConversationLog, turn: string): Promise<void> {
  return endTurn(log, turn, { state: "abandoned" }, (info) => {
    if (info.state !== "waiting" && info.state !== "interrupted" && !info.stalled)
      throw new ConversationError("turn-state", `turn ${turn} is ${info.state}: only a waiting, interrupted or stalled turn can be abandoned`);
  });
}

/**
 * Ends `stopped` a turn that waits for a person, stopped by the stream that
 * showed its wait (`s.abort()`): as a running turn stopped there ends, so a
 * later answer from anywhere is refused (`turn-state`), never run after the
 * caller was told the turn stopped. Conditionally: a turn whose approvals
 * were answered meanwhile (`approval-answered`), or that another process
 * claimed or ended, is not ended under it.
 */
export function stopWaitingTurn(log: ConversationLog, turn: string, reason?: string): Promise<void> {
  return endTurn(
    log,
    turn,
    { state: "stopped", error: { code: "turn-aborted", message: reason ?? "the turn was stopped while it waited for a person" } },
    (info) => {
      if (info.state === "waiting" && info.waiting.length > 0) return;
      if (info.state === "waiting")
        throw new ConversationError(
          "approval-answered",
          `turn ${turn}: its approvals were answered meanwhile; it goes on where they were answered, not stopped here`,
        );
      throw new ConversationError("turn-state", `turn ${turn} is ${info.state}: it no longer waits, and is not stopped here`);
    },
  );
}
