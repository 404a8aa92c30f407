import { FunctaiError, describeValue } from "../errors.js";
import type { LMResponse } from "../lm/types.js";
import { approvalKey, pluginOf, toolKey } from "../records/keys.js";
import { makeBodyRecord } from "../records/make.js";
import { isPersons } from "../records/read-conversation.js";
import { replyShapeProblem } from "../lm/check-response.js";
import { isLaterFormat } from "../records/schema.js";
import { systemClock, type Clock, type ClockTimer } from "../runtime/clock.js";
import type { ApprovalRecord, ConversationRecord, ToolRecord, WaitingRecord } from "../records/types.js";
import type { AnsweredDoubt } from "../plugins/types.js";

/** A record as the engine writes it: the journal adds format, time, turn and attempt. */
export type RecordBody = { kind: string } & Record<string, unknown>;

/** Where a journal's new records go. `durable` batches must be kept before `write` resolves (to anything). */
export interface JournalSink {
  write(records: object[], durable: boolean): Promise<unknown>;
}

const isReply = (r: object): boolean => (r as { kind?: unknown }).kind === "reply";

/**
 * What is kept within KEEP_REPLY_WITHIN_MS while a step's own code goes on: a paid reply, and an approve function's
 * answer. An approve function that asks a person (on Slack, in a ticket) may take minutes for each of a reply's
 * calls: an answer given while the next call is still being asked waited in memory, and a process that died there
 * lost it (the resumed turn asked again about a call a person had refused, and with a yes ran it).
 */
const keptSoon = (r: object): boolean => {
  const kind = (r as { kind?: unknown }).kind;
  return kind === "reply" || kind === "approval";
};

/**
 * How long a reply may wait in the queue while its step's own code runs (tools that read, an `approve` function,
 * plugin hooks) before it is kept in the background. A step whose code is quick shares one flush with what follows
 * (the next request's, or a changing tool's `started`); one that takes longer (a slow lookup, a person asked on
 * Slack) has its reply kept meanwhile, so a process that dies there leaves no paid reply to pay for again.
 */
export const KEEP_REPLY_WITHIN_MS = 100;

/** A plugin's block of the call at a place, as an earlier run recorded it (an `approval` record with `blocked: true`). */
export interface RecordedBlock {
  plugin: string;
  reason: string;
  /** The call it blocked (its path, which ends in the tool's name). */
  path: string;
  /** The input the plugin was shown when it blocked the call. */
  input: unknown;
}

export interface RecordedAnswer {
  verdict: "yes" | "no";
  reason: string | null;
  by: string | null;
  /** The call it answered (its record's `path`, which ends in the tool's name); unknown for one given outside the records. */
  path?: string;
  /**
   * A person's answer no earlier run acted on (none that claimed the turn after it wrote anything past its lease:
   * one that died first did not), or one given in this run: the run that goes on after it is the first to act on
   * it, and tells the plugins (a refusal's `toolResult`). An answer earlier runs already acted on, or an approve
   * function's (told by the run it answered in), is replayed, not told again.
   */
  fresh?: boolean;
}

/** A person's answer to a call left in doubt, as its `tool` record keeps it: `given`, or a person's `rerun` (see isPersons). */
function personAnswerOf(tool: ToolRecord): AnsweredDoubt | undefined {
  if (!isPersons(tool)) return undefined;
  const { by } = tool as { by?: unknown };
  return { kind: tool.state === "given" ? "given" : "rerun", by: typeof by === "string" ? by : null };
}

/**
 * A plugin's block as its `approval` record keeps it: `verdict: "no"`, the
 * plugin, the block's reason, `blocked: true` (a key a person's answer never
 * has: readers that do not know it read an answer to a question nobody waits
 * for) and the input the plugin was shown.
 */
function blockOf(a: ApprovalRecord): RecordedBlock | undefined {
  const { blocked, input } = a as { blocked?: unknown; input?: unknown };
  const plugin = pluginOf(a.plugin);
  if (blocked !== true || plugin === undefined || a.verdict !== "no" || typeof a.reason !== "string") return undefined;
  return { plugin, reason: a.reason, path: a.path, input };
}

/** A reply record whose response is no model reply (see lm/check-response.ts, replyShapeProblem), named by its seq as a conversation's reading names one. */
function damagedReply(record: ConversationRecord, problem: string): FunctaiError {
  const { seq } = record as { seq?: unknown };
  const where = typeof seq === "number" ? `record ${seq}` : "a record without a seq";
  return new FunctaiError(
    "store-corrupt",
    `${where}, a reply of turn ${describeValue((record as { turn?: unknown }).turn, 60)}, holds no model reply (${problem}); nothing of the turn is replayed, sent or run until it is mended.`,
  );
}

/**
 * Journals whose replies must be kept before any of them pays: one call
 * tree's (a turn and the turns its delegated calls run, in this process).
 * Only journals holding a reply not yet kept are in it.
 */
export type JournalFamily = Set<Journal>;

/**
 * A turn's journal: what earlier runs recorded (looked up on replay, O(1))
 * and what this run adds. Replay indexes are built once from the records at
 * the start; records this run writes never answer its own lookups.
 */
export class Journal {
  readonly turn: string;
  readonly attempt: number;
  /** This turn's records, earlier and new (kept when `keep` is set: in-memory streams replay from them). */
  readonly records: object[] = [];
  readonly #replies = new Map<string, LMResponse[]>();
  /**
   * The places and steps (`site` and step) earlier runs kept replies at: a step's results were sent by a run whose
   * reply to the next step is kept (see repliedAt). `undefined` once a reply without them is read: then nobody knows.
   */
  #replySteps: Set<string> | undefined = new Set();
  readonly #tools = new Map<string, ToolRecord>();
  /** The inputs earlier runs kept of calls, by place (a changing tool's `started` record): what a call there was. */
  readonly #inputs = new Map<string, unknown>();
  readonly #answers = new Map<string, RecordedAnswer>();
  /** The calls plugins blocked in earlier runs, by place (tool key). */
  readonly #blocks = new Map<string, RecordedBlock>();
  /** The plugins whose questions about the call at a place (its tool key) earlier runs recorded answers to. */
  readonly #pluginsAnswered = new Map<string, Set<string>>();
  /** The input each approval showed a person, by approval key (its latest `waiting` record's). */
  readonly #shown = new Map<string, unknown>();
  /** Calls left in doubt that a person answered and no earlier run acted on (see personAnswerOf, #acted), by place. */
  readonly #doubts = new Map<string, AnsweredDoubt>();
  /** The answers recorded since the turn was last claimed (each `fresh`: see RecordedAnswer; then in #claims). */
  #freshAnswers: RecordedAnswer[] = [];
  /**
   * What each earlier run found answered when it claimed the turn (by attempt), until it acts (see #acted): a run
   * that claimed it and died before it reached the answered call (its process killed, a read after the claim that
   * failed) left only its lease, and the answers stay for the run that goes on to tell.
   */
  readonly #claims = new Map<number, { doubts: [string, AnsweredDoubt][]; answers: RecordedAnswer[] }>();
  /** What plugins kept in earlier runs (`{ kind: "plugin" }` records, a kind other readers skip), by plugin. */
  readonly #kept = new Map<string, unknown[]>();
  readonly #sink: JournalSink | undefined;
  readonly #keep: boolean;
  readonly #clock: Clock;
  /** Shared with the journals of the turns this one's delegated calls run (see `paying`). */
  readonly family: JournalFamily;
  /**
   * Whether this journal made its family (a turn's own) and so stays in it
   * once its replies are kept (a journal that joined its caller's leaves it):
   * a kept journal in its family is only asked and answers at once, and not
   * leaving and joining again at every step spares the set a new table each time.
   */
  readonly #ownsFamily: boolean;
  #pending: object[] = [];
  /** A background flush failed: the next flush reports it (nothing acknowledged is lost silently). */
  #failed: unknown = undefined;
  /** Keeps a queued reply (or approve function's answer) once it waited KEEP_REPLY_WITHIN_MS (none while none waits). */
  #replyTimer: ClockTimer | undefined = undefined;

  constructor(options: {
    turn: string;
    attempt: number;
    records?: readonly (ConversationRecord | object)[];
    sink?: JournalSink;
    keep?: boolean;
    /** Where the records' `at` comes from (the wall clock by default). */
    clock?: Clock;
    /** The calling turn's family, for a turn run by a delegated call (a family of its own by default). */
    family?: JournalFamily;
  }) {
    this.#clock = options.clock ?? systemClock;
    this.family = options.family ?? new Set();
    this.#ownsFamily = options.family === undefined;
    this.turn = options.turn;
    this.attempt = options.attempt;
    this.#sink = options.sink;
    this.#keep = options.keep ?? false;
    for (const raw of options.records ?? []) this.#index(raw as ConversationRecord);
  }

  /** Whether anything is written anywhere (plain calls journal nothing). */
  get recording(): boolean {
    return this.#keep || this.#sink !== undefined;
  }

  #earlier = 0;

  /** Whether earlier runs recorded anything of this turn (this run replays them). */
  get replaying(): boolean {
    return this.#earlier > 0;
  }

  #index(record: ConversationRecord): void {
    // a record of a later format is another format's (as every reader skips it): never read as this one's reply or result
    if ((record as { turn?: unknown }).turn !== this.turn || isLaterFormat(record)) return;
    this.#earlier += 1;
    if (this.#keep) this.records.push(record);
    const { attempt } = record as { attempt?: unknown };
    if (typeof attempt === "number" && record.kind !== "lease" && record.kind !== "plugin") this.#acted(attempt);
    switch (record.kind) {
      case "reply": {
        const { key, response } = record as { key: string; response: LMResponse };
        // refused when read, before anything of the turn runs again: replayed, it failed the turn for good (a bare
        // TypeError) or was misread. The turn is let go, not ended, and goes on once the record is mended
        const problem = replyShapeProblem(response);
        if (problem !== undefined) throw damagedReply(record, problem);
        const list = this.#replies.get(key);
        if (list) list.push(response);
        else this.#replies.set(key, [response]);
        const { site, step } = record as { site?: unknown; step?: unknown };
        if (typeof site === "string" && typeof step === "number") this.#replySteps?.add(`${site}\n${step}`);
        else this.#replySteps = undefined;
        break;
      }
      case "tool": {
        const tool = record as ToolRecord;
        const key = toolKey(tool.site, tool.invocation);
        this.#tools.set(key, tool);
        // a call's later records (done, given, rerun) keep no input: its `started` record said what the call was
        if (tool.input !== undefined) this.#inputs.set(key, tool.input);
        const person = personAnswerOf(tool);
        if (person) this.#doubts.set(key, person);
        else this.#doubts.delete(key);
        break;
      }
      case "lease": {
        // an earlier run claimed the turn: what was answered before it, it acts on once it writes anything more (see
        // #acted). This run's own claim (its attempt's lease, appended before its records are read) is no such run;
        // nor are its renewals and its let-go (its first lease says what it found)
        if (typeof attempt !== "number" || attempt === this.attempt || this.#claims.has(attempt)) break;
        this.#claims.set(attempt, { doubts: [...this.#doubts], answers: this.#freshAnswers });
        this.#freshAnswers = [];
        break;
      }
      case "approval": {
        const a = record as ApprovalRecord;
        const blocked = blockOf(a);
        if (blocked) {
          this.#blocks.set(toolKey(a.site, a.invocation), blocked);
          break;
        }
        // (an approve function's answer, written by the run it answered in: that run told it, a later one replays it)
        const fresh = isPersons(a);
        const answer: RecordedAnswer = { verdict: a.verdict, reason: a.reason ?? null, by: a.by ?? null, fresh };
        if (typeof a.path === "string") answer.path = a.path;
        if (fresh) this.#freshAnswers.push(answer);
        const key = approvalKey(a.site, a.invocation, a.plugin);
        this.#answers.set(key, answer);
        // an approve function's answer keeps the input it was shown (a person's is the `waiting` record's)
        if (Object.hasOwn(a, "input")) this.#shown.set(key, (a as { input?: unknown }).input);
        const plugin = pluginOf(a.plugin);
        if (plugin !== undefined) {
          const place = toolKey(a.site, a.invocation);
          const plugins = this.#pluginsAnswered.get(place);
          if (plugins) plugins.add(plugin);
          else this.#pluginsAnswered.set(place, new Set([plugin]));
        }
        break;
      }
      case "waiting": {
        const { approvals } = record as WaitingRecord;
        if (Array.isArray(approvals))
          for (const a of approvals) {
            const key = approvalKey(a.site, a.invocation, a.plugin);
            // asked (again): only an answer after this showing answers it (a call made anew at an answered place is asked about again)
            this.#answers.delete(key);
            if (Object.hasOwn(a, "input")) this.#shown.set(key, a.input);
            else this.#shown.delete(key);
          }
        break;
      }
      case "plugin": {
        const { plugin, data } = record as { plugin?: unknown; data?: unknown };
        if (typeof plugin === "string") this.#kept.set(plugin, [...(this.#kept.get(plugin) ?? []), data]);
        break;
      }
    }
  }

  /**
   * The run of `attempt` wrote something past its lease (a reply, a tool's record, its wait or end; not what a plugin
   * kept as it started): it went on after the answers it found when it claimed the turn, and those earlier claims'
   * too. A run that replays them after it tells no plugin of them again.
   */
  #acted(attempt: number): void {
    for (const [claimed, seen] of this.#claims) {
      if (claimed > attempt) continue;
      this.#claims.delete(claimed);
      for (const a of seen.answers) a.fresh = false;
      for (const [key, doubt] of seen.doubts) if (this.#doubts.get(key) === doubt) this.#doubts.delete(key);
    }
  }

  /** The next recorded reply for this request fingerprint, if an earlier run had one (each is used once). */
  takeReply(key: string): LMResponse | undefined {
    return this.#replies.get(key)?.shift();
  }

  /**
   * Whether an earlier run kept a reply of the model call at `site` at this step (one it paid for: a request it sent
   * after the step before's results). True when a reply was kept without its place and step (it may be that one).
   */
  repliedAt(site: string, step: number): boolean {
    return this.#replySteps === undefined || this.#replySteps.has(`${site}\n${step}`);
  }

  tool(site: string, invocation: number): ToolRecord | undefined {
    return this.#tools.get(toolKey(site, invocation));
  }

  /** The input the records of the call at this place kept (a changing tool's `started` keeps it), if any did. */
  toolInput(site: string, invocation: number): { input: unknown } | undefined {
    const key = toolKey(site, invocation);
    return this.#inputs.has(key) ? { input: this.#inputs.get(key) } : undefined;
  }

  /**
   * A person's recorded answer to the call at this place, when it was given to this call (`path`): after a
   * deploy, or another model, a request is sent anew and its reply may call another tool here, which an answer
   * given to the one before never approves (it is asked about again).
   */
  answer(site: string, invocation: number, plugin: string | null | undefined, path: string): RecordedAnswer | undefined {
    const answer = this.#answers.get(approvalKey(site, invocation, plugin));
    return answer === undefined || answer.path === undefined || answer.path === path ? answer : undefined;
  }

  /**
   * A person's answer to the call at this place, left in doubt by an earlier run (`given`: what it returned; `rerun`:
   * run it again), when no earlier run acted on it (see #acted): this run is the first to act on it.
   */
  answeredDoubt(site: string, invocation: number): AnsweredDoubt | undefined {
    return this.#doubts.get(toolKey(site, invocation));
  }

  /** The block a plugin gave the call at this place in an earlier run, if one did (see approvals.ts). */
  block(site: string, invocation: number): RecordedBlock | undefined {
    return this.#blocks.get(toolKey(site, invocation));
  }

  /**
   * The plugins whose questions about the call at this place a person answered in an earlier run (the answer may
   * have been asked again since: `answer` says whether it stands). Their answers stand whatever plugins the run
   * that resumes is given: see approvals.ts.
   */
  pluginsAnswered(site: string, invocation: number): ReadonlySet<string> | undefined {
    return this.#pluginsAnswered.get(toolKey(site, invocation));
  }

  /** The input an earlier run's approval showed a person (its `waiting` record's), if one did. */
  shownInput(site: string, invocation: number, plugin?: string | null): { input: unknown } | undefined {
    const key = approvalKey(site, invocation, plugin);
    return this.#shown.has(key) ? { input: this.#shown.get(key) } : undefined;
  }

  /** What a plugin kept in earlier runs of this turn, oldest first. */
  kept(plugin: string): readonly unknown[] {
    return this.#kept.get(plugin) ?? [];
  }

  /** Adds an answer given outside the records (an in-process stream's `approve`); `fresh` when no earlier run acted on it. */
  addAnswer(key: string, answer: RecordedAnswer, fresh = true): void {
    this.#answers.set(key, { ...answer, fresh });
  }

  /**
   * Writes a record. Durable records (a changing tool's `started`) are kept
   * before this resolves, with everything queued before them; others ride
   * along with the next flush.
   */
  add(body: RecordBody, durable = false): Promise<unknown> | undefined {
    if (!this.recording) return undefined;
    // checked before it is queued: a record that fails its schema is a bug of ours, never written
    const record = makeBodyRecord(this.turn, this.attempt, body, this.#clock.now());
    if (this.#keep) this.records.push(record);
    if (!this.#sink) return undefined;
    this.#pending.push(record);
    if (body.kind === "reply") this.family.add(this);
    if (keptSoon(body))
      // real time, whatever the turn's clock: it bounds how long a process that dies may leave a paid reply (or a given answer) unkept
      this.#replyTimer ??= systemClock.after(KEEP_REPLY_WITHIN_MS, () => {
        this.#replyTimer = undefined;
        if (this.#pending.some(keptSoon)) this.flush(true).catch((e: unknown) => (this.#failed ??= e));
      });
    if (durable) return this.flush(true);
    if (this.#pending.length >= 64) {
      this.flush(false).catch((e: unknown) => (this.#failed ??= e));
    }
    return undefined;
  }

  /**
   * Durable before paying: called before a model request is sent. When a
   * reply waits in the queue (with what its step's reading tools returned),
   * everything queued is kept first, so a crash during the request never
   * makes a resume pay for a reply that had arrived. A step with a changing
   * tool already kept its reply with the tool's `started` record: then what
   * came after it (the tool's `done`, with its result) is written without
   * waiting for a flush (the next durable batch flushes it: one flush per
   * model call at most), so a process that dies during the request leaves
   * the tool done, not unfinished for a person to settle.
   */
  keepBeforePaying(): Promise<unknown> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (this.#pending.some(isReply)) return this.flush(true);
    const written = this.#pending.length > 0 ? this.flush(false) : undefined;
    // a reply another call's flush is writing is kept once the store acknowledges it
    if (this.#writing.length === 0) return written ?? Promise.resolve();
    return Promise.all(written ? [written, ...this.#writing] : this.#writing).then(() => undefined);
  }

  /**
   * Sends a paid request once every reply before it is kept: this turn's,
   * and those of the other turns of its call tree in this process (a
   * delegated call's turn, or its caller). The last check is made in the
   * tick the request goes out: a reply that a concurrent call (tools run
   * side by side) received while this one waited is kept first too.
   */
  async paying<T>(send: () => Promise<T>, afterWait?: () => void | Promise<void>): Promise<T> {
    let waited = false;
    // (once at least: a background flush that failed is reported before anything is paid)
    do {
      waited ||= this.#writes();
      await this.keepBeforePaying();
      // another turn's failed flush is that turn's to report: here it only must not be waited for forever
      if (!this.#alone())
        for (const other of this.family)
          if (other !== this) {
            waited ||= other.#writes();
            await other.keepBeforePaying().catch(() => other.family.delete(other));
          }
    } while (this.#familyUnkept());
    // a write waited for is the longest wait before the request: a holder paused there (a suspended VM, a long GC)
    // may wake after another process went on with the turn and paid for this very reply. Asked again here, it never
    // pays on a lease (or a database session's lock) lost meanwhile
    if (waited && afterWait) {
      const again = afterWait();
      if (again) await again;
    }
    return send();
  }

  /** Whether keeping what came before a request waits for the store (records queued, or a write under way). */
  #writes(): boolean {
    return this.#pending.length > 0 || this.#writing.length > 0;
  }

  /** No other journal in the family (most turns: no delegated call running): nothing to walk. */
  #alone(): boolean {
    const size = this.family.size;
    return size === 0 || (size === 1 && this.family.has(this));
  }

  #familyUnkept(): boolean {
    if (this.#alone()) return this.family.size === 1 && this.#unkept();
    for (const j of this.family) if (j.#unkept()) return true;
    return false;
  }

  /** Whether a reply of this journal is queued or being written (then it stays in its family). */
  #unkept(): boolean {
    if (this.#failed !== undefined) return false;
    const unkept = this.#writing.length > 0 || this.#pending.some(isReply);
    if (!unkept && !this.#ownsFamily) this.family.delete(this);
    return unkept;
  }

  /** Flushes holding a reply that the store has not acknowledged yet (in no order; an array, which a removal leaves as it is, where a set would make a new table as it empties). */
  readonly #writing: Promise<unknown>[] = [];

  /** Sends queued records to the sink. */
  flush(durable = false): Promise<unknown> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (!this.#sink || this.#pending.length === 0) return Promise.resolve();
    const batch = this.#pending;
    this.#pending = [];
    if (this.#replyTimer) {
      this.#replyTimer.cancel();
      this.#replyTimer = undefined;
    }
    // a batch holding a paid reply (or an approve function's answer) is kept durable, whoever flushes it: written
    // riding (the background flush at 64 queued records, a lease renewal's), it left nothing queued for the next
    // request's keepBeforePaying to make durable, and a crash during that request lost a reply that was paid for
    if (!durable && batch.some(keptSoon)) durable = true;
    const written = this.#sink.write(batch, durable);
    if (batch.some(isReply)) {
      const writing = this.#writing;
      const settled = (): void => {
        const at = writing.indexOf(written);
        if (at < 0) return;
        writing[at] = writing[writing.length - 1]!;
        writing.pop();
      };
      writing.push(written);
      written.then(settled, settled);
    }
    return written;
  }
}
