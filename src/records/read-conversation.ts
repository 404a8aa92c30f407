/**
 * What a conversation's records say: each turn's state, what it waits for,
 * which tools may have run, the head, and where a new turn goes (DESIGN.md,
 * "The journal"; FunctAI's contract/conversations.md, format 1).
 *
 * Pure and single-pass: one walk over the records, then one pass over the
 * turns (conversations can hold 100k records).
 */
import { FunctaiError, describeValue } from "../errors.js";
import { approvalKey, toolKey } from "./keys.js";
import { isInstantText, readRecord } from "./schema.js";
import type {
  ApprovalRecord,
  EndedRecord,
  KnownRecord,
  ProgramRecord,
  ToolRecord,
  TurnRecord,
  TurnState,
  WaitingApproval,
  WaitingRecord,
} from "./types.js";

/**
 * One turn, as its records describe it.
 *
 * @example
 * const state = readConversation(await store.read("sam"), { now: Date.now() });
 * for (const info of state.turns.values()) console.log(info.id, info.state, info.waiting.length);
 */
export interface TurnInfo {
  id: string;
  state: TurnState;
  parent: string | null;
  /** The program version (a `program` record's `version`). */
  program: string;
  inputs: Record<string, unknown>;
  /** The approval rule the turn was sent with (our extension of the turn record), or null. */
  approve: unknown;
  /** The `seq` of its `turn` record. */
  seq: number;
  /** The highest lease attempt (0 when it has no lease). */
  attempt: number;
  /** The last lease's holder and end. */
  holder: string | null;
  /**
   * Set by a conversation's reading (not by {@link readConversation}): the
   * turn reads `running` because its holder is provably alive, though its
   * lease ran out (a paused process). Nobody may claim it; a person may
   * still abandon it.
   */
  stalled?: boolean;
  leaseUntil: string | null;
  /**
   * Unanswered approvals: those of its last `waiting` record that no later
   * `approval` names. Read literally, as the contract says, even for a turn
   * that has since ended: offer them to a person only while `state` is `waiting`.
   */
  waiting: WaitingApproval[];
  /** Every `approval` record of the turn, in order. */
  answers: ApprovalRecord[];
  /** Tools whose last record is `started`: they may have run. */
  unfinished: ToolRecord[];
  /** The last `tool` record per call, by `${site}:${invocation}`. */
  tools: Map<string, ToolRecord>;
  ended: EndedRecord | null;
  /** A `stop` record names the turn (see {@link readConversation} for its effect on `state`). */
  stopped: boolean;
  /** The last `snapshot` record's snapshot (the turn actor's persisted snapshot). */
  snapshot: unknown | null;
}

/**
 * Where a new turn goes: under `parent`, behind a running head, or nowhere while the head waits.
 *
 * @example
 * const next: NextTurn = readConversation(await store.read("sam"), { now: Date.now() }).next;
 * if ("refuses" in next) console.log("the head waits for a person");
 */
export type NextTurn = { parent: string | null } | { waits: string } | { refuses: "conversation-busy" };

/**
 * What a conversation's records say: each turn's state, the head, where the next turn goes, records skipped.
 *
 * @example
 * const state: ConversationState = readConversation(await store.read("sam"), { now: Date.now() });
 * state.next;   // { parent: "…" }, { waits: "…" } or { refuses: "conversation-busy" }
 */
export interface ConversationState {
  /** In the order of their `turn` records. */
  turns: Map<string, TurnInfo>;
  head: string | null;
  next: NextTurn;
  /** The highest `seq` seen (on any record, known or not): the `expect` of the next append. */
  length: number;
  /** `program` records by version (the first for each version). */
  programs: Map<string, ProgramRecord>;
  /**
   * Records of a known kind that failed their schema, whose seq is not after the ones before, that name a turn
   * no turn record before them declared, a person's answer to nothing its turn waits for, or a waiting record asking
   * one question twice: skipped, never misread.
   */
  skipped: { seq: number | null; error: string }[];
}

/**
 * What the walk keeps per turn: only what its {@link TurnInfo} is made of
 * (not the records it read: a 10k-turn conversation keeps ~1 KB per turn).
 */
interface Tally
  extends Pick<TurnInfo, "id" | "parent" | "program" | "inputs" | "approve" | "seq" | "attempt" | "holder" | "ended" | "stopped" | "snapshot"> {
  /** The last lease's end (TurnInfo's `leaseUntil`), and where the lease was. */
  until: string | null;
  leaseAt: number;
  lastWaiting: WaitingRecord | null;
  waitingAt: number;
  /** Approvals named by `approval` records after the last `waiting` record (null: none). */
  answeredSince: Set<string> | null;
  /** The keys of the questions the last `waiting` record asks (made when a person's answer is first checked against them). */
  asked: Set<string> | null;
  answers: ApprovalRecord[] | null;
  tools: Map<string, ToolRecord> | null;
  /** The last TurnInfo given out, and whether a record came since (an ended turn's is given again until one does). */
  given: TurnInfo | null;
  changed: boolean;
}

/**
 * An instant: whole milliseconds since the epoch (`ms`, floored) and the
 * microseconds after them (`us`, 0 to under 1000, with any fraction of one).
 *
 * Two numbers, not one count of microseconds: past 2^53 µs (the year 2255,
 * and before 1685) a count is no longer exact, and an `until` a few
 * microseconds before `now` would compare equal to it (a lapsed lease read
 * live). Records write six fractional digits; `Date` keeps three.
 */
interface Instant {
  ms: number;
  us: number;
}

/** `value` as an {@link Instant}; `null` when it is not a time (Infinity included: every lease would read lapsed, or live for ever). */
function instant(value: Date | string | number): Instant | null {
  if (value instanceof Date) return inRange(value.getTime(), 0);
  if (typeof value === "number") {
    const ms = Math.floor(value);
    return inRange(ms, (value - ms) * 1000);
  }
  if (typeof value !== "string") return null;
  // Date.parse also reads texts that are no instant ("1" is the year 2001; a time without its offset is the
  // machine's local time): only what a lease's `until` may be is taken, so one `now` reads the same everywhere.
  if (!isInstantText(value)) return null;
  // Date.parse floors to the millisecond; the digits after the 3rd are the microseconds after it (a writer
  // with nanoseconds, as Go's RFC 3339 writes, keeps them as a fraction of a microsecond: never rounded away).
  const fraction = /T\d\d:\d\d:\d\d\.(\d+)/.exec(value)?.[1] ?? "";
  return inRange(Date.parse(value), Number(`${fraction.slice(3, 6).padEnd(3, "0")}.${fraction.slice(6) || "0"}`));
}

const inRange = (ms: number, us: number): Instant | null => (Number.isFinite(ms) && Number.isFinite(us) ? { ms, us } : null);

/** Whether `a` is not before `b`. */
const notBefore = (a: Instant, b: Instant): boolean => a.ms > b.ms || (a.ms === b.ms && a.us >= b.us);

const seqOf = (raw: unknown): number | null => {
  const seq = typeof raw === "object" && raw !== null ? (raw as { seq?: unknown }).seq : undefined;
  return typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0 ? seq : null;
};

function newTally(record: TurnRecord): Tally {
  return {
    id: record.turn,
    parent: record.parent,
    program: record.program,
    inputs: record.inputs,
    approve: record.approve ?? null,
    seq: record.seq,
    attempt: 0,
    holder: null,
    until: null,
    leaseAt: -1,
    lastWaiting: null,
    waitingAt: -1,
    answeredSince: null,
    asked: null,
    answers: null,
    tools: null,
    ended: null,
    stopped: false,
    snapshot: null,
    given: null,
    changed: true,
  };
}

/** Applies one record to its turn's tally. `at` is the record's position. */
function apply(t: Tally, r: Exclude<KnownRecord, ProgramRecord | TurnRecord>, at: number): void {
  t.changed = true;
  switch (r.kind) {
    case "lease":
      t.holder = r.holder;
      t.until = r.until;
      t.leaseAt = at;
      t.attempt = Math.max(t.attempt, r.attempt);
      break;
    case "waiting":
      t.lastWaiting = r;
      t.waitingAt = at;
      t.answeredSince = null; // only answers after the last waiting record count
      t.asked = null;
      break;
    case "approval":
      (t.answers ??= []).push(r);
      (t.answeredSince ??= new Set()).add(approvalKey(r.site, r.invocation, r.plugin));
      break;
    case "tool":
      (t.tools ??= new Map()).set(toolKey(r.site, r.invocation), r); // the last record per call decides
      break;
    case "ended":
      t.ended ??= r; // a turn ends once: a later `ended` is ignored
      break;
    case "stop":
      t.stopped = true;
      break;
    case "snapshot":
      t.snapshot = r.snapshot;
      break;
    case "reply":
    case "head":
      break; // replies are for resuming; heads are handled by the caller
  }
}

/**
 * Why a person's answer (an `approval` record without `attempt`: the engine stamps its own, an approve function's
 * or a plugin's block, with its run's) answers nothing a person was asked, or null when it answers a question of its
 * turn's last `waiting` record that no answer since took. A person answers only what a turn waits for (the handles
 * refuse anything else), so any other is damage or a foreign writer's: read, the journal took a yes naming a call
 * nobody was asked about as consent for whatever call the model made there next (a changing tool ran unasked), and a
 * second answer to one question overrode the first (a person's no, then a stray yes, ran the tool).
 */
function strayAnswer(t: Tally, r: ApprovalRecord): string | null {
  const key = approvalKey(r.site, r.invocation, r.plugin);
  const waiting = t.lastWaiting;
  if (waiting === null) return `turn ${describeValue(t.id, 60)} asked a person nothing (no waiting record before it), yet it answers ${describeValue(key, 80)}`;
  t.asked ??= new Set(waiting.approvals.map((a) => approvalKey(a.site, a.invocation, a.plugin)));
  if (!t.asked.has(key)) return `it answers ${describeValue(key, 80)}, a question the last waiting record of turn ${describeValue(t.id, 60)} does not ask`;
  if (t.answeredSince?.has(key) === true) return `it answers ${describeValue(key, 80)} again: a person answered it since turn ${describeValue(t.id, 60)} asked it`;
  return null;
}

/**
 * Why a person's result or rerun (a `given` tool record, or a `rerun` one without `attempt`: the engine's own rerun,
 * of a call that never ran, carries its run's) answers no call left in doubt, or null when the call's last record is
 * `started`. A person is asked only about those (the handles refuse the rest), so any other is damage or a foreign
 * writer's: read, a `given` for a call the model had not made yet was taken as that call's result when it came (the
 * model told "paid" of a payment never made), and one for a call already done replaced what the tool returned.
 */
function strayResult(t: Tally, r: ToolRecord): string | null {
  const last = t.tools?.get(toolKey(r.site, r.invocation));
  if (last?.state === "started") return null;
  const call = `${describeValue(toolKey(r.site, r.invocation), 80)} of turn ${describeValue(t.id, 60)}`;
  return `a person's ${r.state} for ${call}, ${last === undefined ? "a call no record before it started" : `a call ${last.state} already`}: only a call that started and may have run is given a result or a rerun`;
}

/**
 * Why a `waiting` record asks one question twice (one site, invocation and plugin), or null. A run asks each once (a
 * call has one place, a plugin one name, and none may be named "approval"): two are damage, shown as two approvals of
 * one id, and a person's answer to each would be the second answer to one question (refused, see strayAnswer).
 */
function askedTwice(r: WaitingRecord): string | null {
  const keys = new Set<string>();
  for (const a of r.approvals) {
    const key = approvalKey(a.site, a.invocation, a.plugin);
    if (keys.has(key)) return `it asks ${describeValue(key, 80)} twice`;
    keys.add(key);
  }
  return null;
}

/**
 * A record a person wrote (an answer), not a run: an approval or a rerun without the run's attempt, and every `given`
 * (the engine never writes one). The engine stamps its own with its run's attempt: an approve function's answer, a
 * plugin's block, its rerun of a call that never ran or was entered again after a wait inside it. The reader and the
 * journal ask this one rule, so they never disagree on whose a record is.
 */
export const isPersons = (r: KnownRecord): r is ApprovalRecord | ToolRecord =>
  (r.kind === "approval" && !Object.hasOwn(r, "attempt")) ||
  (r.kind === "tool" && (r.state === "given" || (r.state === "rerun" && !Object.hasOwn(r, "attempt"))));

function stateOf(t: Tally, now: Instant): TurnState {
  if (t.ended) return t.ended.state;
  const waiting = t.waitingAt > t.leaseAt;
  const until = t.until === null ? null : instant(t.until);
  const live = until !== null && notBefore(until, now);
  const running = !waiting && live;
  // A stop was asked: the turn stops once no process runs it (a waiting or
  // interrupted turn is stopped at once; a running one still runs until its
  // process reads the stop, or its lease runs out).
  if (t.stopped && !running) return "stopped";
  return waiting ? "waiting" : running ? "running" : "interrupted";
}

/**
 * The turn's TurnInfo as of `now`: a new object (its lists its own, so what
 * was given out never changes under its holder), except for an ended turn
 * no record came for since: its state no longer depends on `now`.
 */
function finish(t: Tally, now: Instant): TurnInfo {
  if (!t.changed && t.given !== null && t.ended !== null) return t.given;
  const tools = new Map(t.tools ?? undefined);
  const answered = t.answeredSince;
  const info: TurnInfo = {
    id: t.id,
    state: stateOf(t, now),
    parent: t.parent,
    program: t.program,
    inputs: t.inputs,
    approve: t.approve,
    seq: t.seq,
    attempt: t.attempt,
    holder: t.holder,
    leaseUntil: t.until,
    waiting: (t.lastWaiting?.approvals ?? []).filter((a) => !answered?.has(approvalKey(a.site, a.invocation, a.plugin))),
    answers: t.answers?.slice() ?? [],
    unfinished: t.tools ? [...t.tools.values()].filter((r) => r.state === "started") : [],
    tools,
    ended: t.ended,
    stopped: t.stopped,
    snapshot: t.snapshot,
  };
  t.given = info;
  t.changed = false;
  return info;
}

/** The head when it ended `done`, else its nearest ancestor that did (a turn with no answer is never a parent). */
export function doneOn(turns: Map<string, TurnInfo>, from: string | null): string | null {
  const seen = new Set<string>(); // parent links are data: never loop on a cycle
  for (let id = from; id !== null && !seen.has(id); ) {
    seen.add(id);
    const turn = turns.get(id);
    if (!turn) return null;
    if (turn.state === "done") return id;
    id = turn.parent;
  }
  return null;
}

function nextTurn(turns: Map<string, TurnInfo>, head: string | null): NextTurn {
  const state = head === null ? undefined : turns.get(head)?.state;
  if (head !== null && state === "running") return { waits: head };
  if (state === "waiting") return { refuses: "conversation-busy" };
  return { parent: doneOn(turns, head) };
}

/**
 * Reads a conversation's records (in store order) into each turn's state,
 * the head, and where a new turn goes. Pure: the same records and `now` give
 * the same answer.
 *
 * - A turn's state: its `ended` record's state; else `waiting` when a
 *   `waiting` record follows its last `lease`; else `running` when its last
 *   lease's `until` is not before `now`; else `interrupted`. A `stop` record
 *   makes a turn that has not ended `stopped` once no process runs it (it is
 *   still `running` while its lease is live and it is not waiting).
 * - Unanswered approvals: those of its last `waiting` record that no later
 *   `approval` names (by site, invocation and plugin; absent, `null` and
 *   `"approval"` are the built-in approval).
 * - Unfinished tools: those whose last `tool` record (by site and invocation)
 *   is `started`; `done`, `given` and `rerun` settle them.
 * - Head: the latest turn, or the turn a later `head` record names (one
 *   naming no turn declared before it is skipped, as below).
 * - `next`: `{ waits }` when the head runs, `{ refuses: "conversation-busy" }`
 *   when it waits, else `{ parent }`: the head when it ended `done`, else its
 *   nearest ancestor that did, else `null`.
 *
 * Unknown kinds, formats and keys are ignored; a known kind that fails its
 * schema is skipped and listed in `skipped`, and so is a record whose `seq`
 * is not after every seq before it (duplicated or out of order), and so is
 * a record naming a turn no earlier `turn` record declared (a `turn` record
 * of a later format declares nothing here), or a `turn` record whose parent
 * none declared, or a person's answer (an `approval` record without
 * `attempt`) to no question of its turn's last `waiting` record, or to one
 * a person answered since, or a person's `given` (or `rerun`) for a call
 * whose last `tool` record is not `started`, or a `waiting` record that asks
 * one question twice. A second `turn` record for the same id is ignored. Throws
 * `input-invalid` only when `now` is not a time (a text: an ISO 8601 instant
 * with its offset), or the records are not a list.
 *
 * @example
 * const state = readConversation(await store.read("sam"), { now: new Date() });
 * state.turns.get(state.head!)?.state;   // "waiting"
 * state.next;                            // { refuses: "conversation-busy" }
 */
export function readConversation(records: readonly unknown[], options: { now: Date | string | number }): ConversationState {
  if (typeof options !== "object" || options === null)
    throw new FunctaiError(
      "input-invalid",
      `readConversation(records, { now }): its options are an object with now, not ${describeValue(options, 40)}`,
    );
  return new ConversationReader().add(records).state(options.now);
}

/**
 * {@link readConversation}, a record at a time: `add` what a store appended
 * since (a conversation of 10k turns is walked once, not at every read), then
 * `state(now)` as often as needed. `readConversation(records, { now })` is
 * `new ConversationReader().add(records).state(now)`.
 *
 * @example
 * const reader = new ConversationReader().add(await store.read("sam"));
 * // later
 * reader.add(await store.read("sam", reader.length)).state(Date.now()).head;
 */
export class ConversationReader {
  readonly #tallies = new Map<string, Tally>();
  readonly #programs = new Map<string, ProgramRecord>();
  readonly #skipped: ConversationState["skipped"] = [];
  #head: string | null = null;
  #length = 0;
  /** The highest `seq` of a known record walked. */
  #lastKnown = 0;
  #at = 0;

  /** The highest `seq` seen so far: read on from here. */
  get length(): number {
    return this.#length;
  }

  /** The records skipped as damage so far (as `state(now).skipped` lists them), without reading every turn's state. */
  get skipped(): ConversationState["skipped"] {
    return this.#skipped.slice();
  }

  /** Walks `records` (in store order, after those added before). */
  add(records: Iterable<unknown>): this {
    // (a store's answer passed on unchecked: a bare "is not iterable" TypeError would not say whose)
    if (typeof records !== "object" || records === null || typeof (records as Partial<Iterable<unknown>>)[Symbol.iterator] !== "function")
      throw new FunctaiError("input-invalid", `readConversation: records are a list of records, not ${describeValue(records, 40)}`);
    for (const raw of records) this.addOne(raw);
    return this;
  }

  /** Walks one record. */
  addOne(raw: unknown): void {
    const at = this.#at++;
    const seq = seqOf(raw);
    if (seq !== null && seq > this.#length) this.#length = seq;
    const parsed = readRecord(raw);
    if (!parsed.ok) {
      if ("error" in parsed) this.#skipped.push({ seq, error: parsed.error });
      return;
    }
    const r = parsed.record;
    // A store gives seqs in order (1, 2, …): a known record whose seq is not after every known one before it is a
    // record duplicated or spliced in (a torn or merged copy, two writers that both appended). It is refused, never
    // walked: a second `lease` of one attempt, or an `ended` record put back in, would read as if the store kept it.
    // (Records of kinds or formats this version does not know are not walked, and take no part.)
    if (r.seq <= this.#lastKnown) {
      this.#skipped.push({
        seq: r.seq,
        error: `${r.kind} record: seq ${r.seq} comes after seq ${this.#lastKnown}: records are duplicated or out of order`,
      });
      return;
    }
    this.#lastKnown = r.seq;
    if (r.kind === "program") {
      if (!this.#programs.has(r.version)) this.#programs.set(r.version, r);
      return;
    }
    if (r.kind === "turn") {
      if (this.#tallies.has(r.turn)) return; // a turn is declared once
      // a parent damaged: the turn's branch would read cut off from the turns before it (its history lost)
      if (r.parent !== null && !this.#tallies.has(r.parent)) return this.#undeclared(r, "parent", r.parent);
      this.#tallies.set(r.turn, newTally(r));
      this.#head = r.turn; // the latest turn is the head…
      return;
    }
    const tally = this.#tallies.get(r.turn);
    // a turn id damaged, or a record put before its turn's: read as not written, an `ended` or `approval` record
    // would leave its turn to run or wait again
    if (!tally) return this.#undeclared(r, "turn", r.turn);
    if (r.kind === "head")
      this.#head = r.turn; // …unless a later head record names another
    // a claim appends attempt + 1 and a renewal is fenced on its own: attempts only go up, and a lease of an attempt
    // below one before it is an old one put back (a merge, a restore), whose run-out `until` would make a turn another
    // holder runs read claimable
    else if (r.kind === "lease" && r.attempt < tally.attempt)
      this.#skipped.push({
        seq: r.seq,
        error: `lease record: attempt ${r.attempt} comes after attempt ${tally.attempt} of turn ${describeValue(r.turn, 60)}`,
      });
    else {
      // a person's answer must answer what the turn waits for (see strayAnswer, strayResult), and a question is asked once
      const stray = isPersons(r) ? (r.kind === "approval" ? strayAnswer(tally, r) : strayResult(tally, r)) : r.kind === "waiting" ? askedTwice(r) : null;
      if (stray !== null) this.#skipped.push({ seq: r.seq, error: `${r.kind} record: ${stray}` });
      else apply(tally, r, at);
    }
  }

  /** Skips a record whose `key` names a turn no turn record before it declared: refused, never ignored. */
  #undeclared(r: KnownRecord, key: "turn" | "parent", turn: string): void {
    this.#skipped.push({ seq: r.seq, error: `${r.kind} record: ${key} ${describeValue(turn, 60)} is declared by no turn record before it` });
  }

  /** Each turn's state at `now`, the head, and where a new turn goes. Throws `input-invalid` only when `now` is not a time. */
  state(now: Date | string | number): ConversationState {
    const at = instant(now);
    if (at === null) {
      const shown = now instanceof Date ? "an invalid Date" : describeValue(now, 40);
      throw new FunctaiError("input-invalid", `readConversation: now is not a time: ${shown}`);
    }
    const turns = new Map<string, TurnInfo>();
    for (const [id, tally] of this.#tallies) turns.set(id, finish(tally, at));
    const head = this.#head;
    return { turns, head, next: nextTurn(turns, head), length: this.#length, programs: new Map(this.#programs), skipped: this.#skipped.slice() };
  }
}
