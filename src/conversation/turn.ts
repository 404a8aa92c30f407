import type { Approval, ApprovalRule } from "../approval/types.js";
import { ConversationError, isFunctaiError } from "../errors.js";
import type { ConversationState, TurnInfo } from "../records/read-conversation.js";
import { makeRecord } from "../records/make.js";
import type { TurnState } from "../records/types.js";
import { startTurn, type TurnSession } from "../turn/session.js";
import type { TurnStream } from "../turn/stream.js";
import type { ConversationCore } from "./core.js";
import { ConversationHost } from "./host.js";
import { ConversationStream } from "./stream.js";
import { approvalKey, unfinishedOf, type UnfinishedTool } from "../records/keys.js";
import { approvalOf, Waiting } from "./waiting.js";

export type { UnfinishedTool };

/**
 * A turn of a conversation, as read from its records: answer it, resume it
 * or abandon it from any process. Each method reads the records afresh.
 */
/** What a person says of each unfinished tool, by invocation (or `"site:invocation"`). */
export interface ResumeOptions {
  /** It did run: this is what it returned. */
  results?: Record<string | number, unknown>;
  /** It did not: run it again. */
  rerun?: readonly (number | string)[];
}

export class Turn {
  readonly id: string;
  state: TurnState;
  parent: string | null;
  inputs: Record<string, unknown>;
  /** Approvals that wait for a person. */
  waiting: Approval[];
  /** Changing tools that started and may have run. */
  unfinished: UnfinishedTool[];
  /** The answer of a turn that ended done. */
  value: unknown;
  error: unknown;
  readonly #core: ConversationCore;

  constructor(core: ConversationCore, info: TurnInfo) {
    this.#core = core;
    this.id = info.id;
    this.state = info.state;
    this.parent = info.parent;
    this.inputs = info.inputs;
    this.waiting = [];
    this.unfinished = [];
    this.#update(info);
  }

  #info!: TurnInfo;

  #update(info: TurnInfo): void {
    this.#info = info;
    this.state = info.state;
    this.waiting = info.state === "waiting" ? info.waiting.map(approvalOf) : [];
    this.unfinished = info.state === "interrupted" || info.state === "waiting" ? unfinishedOf(info) : [];
    this.value = info.ended?.value;
    this.error = info.ended?.error;
  }

  async #read(): Promise<{ state: ConversationState; info: TurnInfo }> {
    const state = await this.#core.read();
    const info = state.turns.get(this.id);
    if (!info) throw new ConversationError("turn-state", `turn ${this.id} is not in conversation ${this.#core.id}`);
    this.#update(info);
    return { state, info };
  }

  /** Reads the turn's state again. */
  async refresh(): Promise<this> {
    await this.#read();
    return this;
  }

  /** Says yes to one waiting approval (`id`), or all; the turn goes on here and resolves to its answer. */
  approve(options: { by?: string; id?: string } = {}): Promise<unknown> {
    return this.#answer("yes", options.by ?? null, null, options.id);
  }

  /** Says no, with a reason the model sees; the turn goes on here. */
  deny(options: { reason?: string; by?: string; id?: string } = {}): Promise<unknown> {
    return this.#answer("no", options.by ?? null, options.reason ?? null, options.id);
  }

  /** Records the answers (conditionally: an approval is answered once), then goes on when nothing waits. */
  async record(verdict: "yes" | "no", by: string | null, reason: string | null, id?: string): Promise<{ info: TurnInfo; chosen: Approval[]; length: number }> {
    for (;;) {
      const { state, info } = await this.#read();
      const waiting = info.waiting.map(approvalOf);
      const chosen = id === undefined ? waiting : waiting.filter((a) => a.id === id);
      if (info.state !== "waiting" || chosen.length === 0) {
        const answeredIds = new Set(info.answers.map((a) => approvalKey(a.site, a.invocation, a.plugin)));
        const answered = id !== undefined ? answeredIds.has(id) : info.answers.length > 0;
        if (answered && (info.state === "waiting" || info.state === "running" || info.state === "done" || info.state === "interrupted"))
          throw new ConversationError("approval-answered", `turn ${this.id}: ${id ?? "its approvals"} already answered`);
        if (info.state !== "waiting") throw new ConversationError("turn-state", `turn ${this.id} is ${info.state}, not waiting for an answer`);
        throw new ConversationError("approval-unknown", `turn ${this.id} has no waiting approval ${String(id)}`);
      }
      const now = Date.now();
      const records = chosen.map((a) =>
        makeRecord("approval", { turn: this.id, site: a.site, invocation: a.invocation, plugin: a.plugin ?? null, path: a.path, verdict, by, reason }, now));
      try {
        const length = await this.#core.store.append(this.#core.id, records, { expect: state.length, durable: true });
        return { info, chosen, length };
      } catch (e) {
        if (!isFunctaiError(e, "store-conflict")) throw e;
      }
    }
  }

  async #answer(verdict: "yes" | "no", by: string | null, reason: string | null, id?: string): Promise<unknown> {
    const { info, chosen, length } = await this.record(verdict, by, reason, id);
    if (chosen.length < info.waiting.length) {
      await this.#read();
      throw new Waiting(this);
    }
    return this.#goOn(info, undefined, length);
  }

  /**
   * Goes on with an interrupted turn (or a waiting one whose approvals were
   * answered). Refuses `turn-unfinished` until every tool that may have run
   * is given its result (`results`) or a rerun (`rerun`), by invocation.
   */
  async resume(options: ResumeOptions = {}): Promise<unknown> {
    const { info, length } = await this.#settle(options);
    return this.#goOn(info, "interrupted", length);
  }

  /**
   * Goes on with the turn here, as a stream of its events (what was shown
   * before is not shown again). A waiting turn is answered in the stream
   * (`s.approve()`, `s.deny(reason)`); an interrupted one takes `results` /
   * `rerun` for its unfinished tools, as `resume` does.
   *
   * @example
   * const s = await turn.stream();
   * for await (const e of s) if (e.type === "approval") s.approve({ by: "maria" });
   */
  stream(options: ResumeOptions = {}): TurnStream<unknown> {
    const info = this.#info; // as this handle last read it: a stale answer is refused when given (approval-answered)
    if (info.state === "waiting" && info.waiting.length > 0)
      return new ConversationStream(this.continueSession(info, "awaitingApproval", true), this.#core, this);
    // what the person said is recorded by the run itself, before it claims the turn (a refusal ends nothing)
    const session = this.continueSession(info, "interrupted", true, async () => (await this.#settle(options)).length);
    return new ConversationStream(session, this.#core, this);
  }

  /**
   * Records what a person said of each unfinished tool (conditionally); the
   * turn as it then stood, and the conversation's length after (what the
   * turn's claim expects).
   */
  async #settle(options: ResumeOptions): Promise<{ info: TurnInfo; length: number }> {
    const results = options.results ?? {};
    const rerun = new Set((options.rerun ?? []).map(String));
    const keyOf = (t: UnfinishedTool): string[] => [String(t.invocation), `${t.site}:${t.invocation}`];
    let seenAttempt: number | undefined;
    for (let tries = 0; ; tries++) {
      const { state, info } = await this.#read();
      if (info.state === "running" || (seenAttempt !== undefined && info.attempt > seenAttempt)) throw this.#claimed(info);
      seenAttempt = info.attempt;
      if (info.state === "waiting" && info.waiting.length > 0) throw new Waiting(this);
      if (info.state !== "interrupted" && info.state !== "waiting")
        throw new ConversationError("turn-state", `turn ${this.id} is ${info.state}: only an interrupted turn (or an answered waiting one) resumes`);
      const unfinished = unfinishedOf(info);
      // a bare invocation number names a tool call only when one unfinished call has it (calls at other depths count from 1 too)
      const shared = new Set(unfinished.map((t) => t.invocation).filter((n, i, all) => all.indexOf(n) !== i));
      const ambiguous = unfinished.filter((t) => shared.has(t.invocation) && (String(t.invocation) in results || rerun.has(String(t.invocation))));
      if (ambiguous.length > 0)
        throw new ConversationError("turn-unfinished", `turn ${this.id}: invocation ${ambiguous[0]!.invocation} names ${ambiguous.filter((t) => t.invocation === ambiguous[0]!.invocation).map((t) => `${t.name} at "${t.site}:${t.invocation}"`).join(" and ")}: name each by its site, e.g. resume({ results: { "${ambiguous[0]!.site}:${ambiguous[0]!.invocation}": <what it returned> } })`);
      const open = unfinished.filter((t) => !keyOf(t).some((k) => k in results || rerun.has(k)));
      if (open.length > 0) {
        const keyFor = (t: UnfinishedTool): string => (shared.has(t.invocation) ? JSON.stringify(`${t.site}:${t.invocation}`) : String(t.invocation));
        const parts = open.map((t) => `${t.name} (invocation ${t.invocation}${shared.has(t.invocation) ? ` at ${t.site}` : ""}) started and may have run: resume({ results: { ${keyFor(t)}: <what it returned> } }) or resume({ rerun: [${keyFor(t)}] })`);
        throw new ConversationError("turn-unfinished", `turn ${this.id}: ${parts.join("; ")}`);
      }
      const records = unfinished.map((t) => {
        const key = keyOf(t).find((k) => k in results);
        const base = { turn: this.id, site: t.site, invocation: t.invocation, name: t.name, path: t.path };
        return makeRecord("tool", key !== undefined ? { ...base, state: "given", output: results[key] ?? null } : { ...base, state: "rerun" }, Date.now());
      });
      let length = state.length;
      try {
        // conditional: of processes resuming at once, one records its answers; the others read again
        if (records.length > 0) length = await this.#core.store.append(this.#core.id, records, { expect: state.length, durable: true });
      } catch (e) {
        if (!isFunctaiError(e, "store-conflict")) throw e;
        if (tries >= 20) throw this.#claimed(info);
        continue;
      }
      return { info, length };
    }
  }

  /** The error for a turn another process goes on with. */
  #claimed(info: TurnInfo): ConversationError {
    const until = info.leaseUntil ? `, lease until ${info.leaseUntil}` : "";
    return new ConversationError("turn-claimed", `turn ${this.id} was resumed by another process first (${info.holder ?? "unknown holder"}${until}): it goes on there, not here`);
  }

  /** Ends the turn without going on. */
  async abandon(): Promise<void> {
    for (let tries = 0; ; tries++) {
      const { state, info } = await this.#read();
      if (info.state === "running") throw this.#claimed(info);
      if (info.state !== "waiting" && info.state !== "interrupted")
        throw new ConversationError("turn-state", `turn ${this.id} is ${info.state}: only a waiting or interrupted turn can be abandoned`);
      const record = makeRecord("ended", { turn: this.id, state: "abandoned", attempt: info.attempt }, Date.now());
      try {
        // conditional: a turn another process claimed meanwhile is not ended under it
        await this.#core.store.append(this.#core.id, [record], { expect: state.length, durable: true });
        break;
      } catch (e) {
        if (!isFunctaiError(e, "store-conflict") || tries >= 20) throw e;
      }
    }
    await this.#read();
  }

  /** Continues the turn here: rehydrates its actor and replays its journal. */
  async #goOn(info: TurnInfo, start: "interrupted" | undefined, length: number): Promise<unknown> {
    const session = this.continueSession(info, start, false, undefined, length);
    return this.#core.settle(session, this, session.actor);
  }

  /** A session that continues this turn (claims it at its first run). Started. */
  continueSession(
    info: TurnInfo,
    start: "interrupted" | "awaitingApproval" | undefined,
    streaming = false,
    /** Run before the claim; may give the conversation's length it left. */
    prepare?: () => Promise<number | void>,
    /** The conversation's length as last read: the claim expects it (a stale one costs a re-read). */
    length = 0,
  ): TurnSession {
    const core = this.#core;
    const settings = core.settings();
    // the rule the turn was sent with holds unless this handle gives one
    if (settings.approve === undefined && (typeof info.approve === "string" || Array.isArray(info.approve)))
      settings.approve = info.approve === "function" ? "changes" : (info.approve as ApprovalRule);
    const host = new ConversationHost({
      def: core.def, settings, store: core.store, conversation: core.id, turn: this.id,
      inputs: info.inputs, history: core.history(info.parent), attempt: info.attempt, claimed: false, length,
      ...(prepare ? { prepare } : {}),
    });
    const snapshot = start !== "interrupted" ? (info.snapshot as { value?: unknown } | null) : null;
    // answered here (a stream): the actor waits with the turn's unanswered approvals
    const pending = start === "awaitingApproval" ? info.waiting.map(approvalOf) : undefined;
    const session = snapshot?.value === "awaitingApproval" && !pending
      ? startTurn(host, { streaming, snapshot })
      : startTurn(host, { streaming, input: pending ? { start: "awaitingApproval", pending } : { start: start ?? "running" } });
    core.keepSnapshots(session);
    session.actor.start();
    if (!pending && session.actor.getSnapshot().value === "awaitingApproval") session.actor.send({ type: "RESUME" });
    if (session.actor.getSnapshot().value === "interrupted") session.actor.send({ type: "RESUME" });
    return session;
  }

  /** The continued turn as a stream (what it had already shown is not shown again). */
  streamOn(info: TurnInfo): TurnStream<unknown> {
    const session = this.continueSession(info, info.state === "interrupted" ? "interrupted" : undefined, true);
    return new ConversationStream(session, this.#core, this);
  }
}
