import type { Approval } from "../approval/types.js";
import { ConversationError, describeValue } from "../errors.js";
import { approvalKey, pluginOf, unfinishedOf, type UnfinishedTool } from "../records/keys.js";
import type { ConversationState, TurnInfo } from "../records/read-conversation.js";
import type { TurnState } from "../records/types.js";
import type { TurnSession } from "../turn/session.js";
import type { TurnStream } from "../turn/stream.js";
import { abandonTurn, recordAnswer, recordResults, refuseToolAnswers, turnIn, type Answer, type ResultCheck, type ResumeOptions } from "./answers.js";
import { keptInputs, toolAt } from "../functions/definition.js";
import { checkRunnable, continueTurn, resultOrWait, waitingOrRecorded, type ConversationContext } from "./driver.js";
import { linkSignal } from "../turn/run.js";
import { provideInsides } from "./internal.js";
import { ConversationStream } from "./stream.js";
import type { ConversationHost } from "./host.js";
import { approvalOf } from "./waiting.js";
import { copyOf, isRecord } from "../runtime/values.js";

export type { ResumeOptions, UnfinishedTool };

/** The options each method of a handle takes. */
const OPTION_KEYS: Record<string, readonly string[]> = {
  approve: ["by", "id"],
  deny: ["reason", "by", "id"],
  resume: ["results", "rerun"],
  stream: ["results", "rerun"],
};

/**
 * A handle's options as given (left out: none), refused before anything is
 * read or written when they are not an object, or when a `by`, `reason` or
 * `id` is not a string: a JavaScript caller's slip would otherwise be a
 * TypeError, or a `record-invalid` (the code of a bug of ours).
 */
function optionsOf<T extends object>(method: string, options: T | undefined): T {
  if (options === undefined) return {} as T;
  const wrong = (what: string): never => {
    throw new ConversationError("input-invalid", `turn.${method}: ${what}; nothing was written`);
  };
  if (!isRecord(options)) wrong(`its options are an object, not ${describeValue(options, 80)}`);
  // a key that is no option was read by nothing: `deny({ reasn })` denied with no reason, `approve({ ID })` said yes to
  // every approval shown, `resume({ result })` said nothing of the tool that ran
  const allowed = OPTION_KEYS[method] ?? [];
  const odd = Object.keys(options).filter((k) => !allowed.includes(k));
  if (odd.length > 0)
    wrong(
      `${odd.map((k) => JSON.stringify(k).slice(0, 60)).join(", ")} ${odd.length === 1 ? "is not an option" : "are not options"}; it takes ${allowed.join(", ")}`,
    );
  for (const key of ["by", "reason", "id"] as const) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== "string" && (value !== null || key === "id"))
      wrong(`${key} is ${key === "id" ? "an approval's id (a string)" : "a string or null"}, not ${describeValue(value, 80)}`);
  }
  return options;
}

/**
 * A turn of a conversation, as read from its records: answer it, resume it
 * or abandon it from any process. Each method reads the records afresh, and
 * the handle's `state`, `waiting` and `unfinished` are current after it.
 *
 * @example
 * const [turn] = await chat.turns();
 * if (turn.state === "waiting") console.log(await turn.approve({ by: "maria" }));
 */
export class Turn<O = unknown> {
  readonly id: string;
  state: TurnState;
  /** `running` only because its holder is provably alive though its lease ran out (a paused process): it cannot be resumed, only abandoned. */
  stalled = false;
  parent: string | null;
  inputs: Record<string, unknown>;
  /** Approvals that wait for a person. */
  waiting: Approval[] = [];
  /** Changing tools that started and may have run. */
  unfinished: UnfinishedTool[] = [];
  /** The answer of a turn that ended done. */
  value: O | undefined;
  error: unknown;
  readonly #ctx: ConversationContext;
  #state: ConversationState;
  #info: TurnInfo;

  /** (Made by a conversation's `turns()` and `turn(id)`.) */
  constructor(ctx: ConversationContext, state: ConversationState, info: TurnInfo) {
    this.#ctx = ctx;
    this.id = info.id;
    this.parent = info.parent;
    this.inputs = info.inputs;
    this.state = info.state;
    this.#state = state;
    this.#info = info;
    this.#update(state, info);
  }

  static {
    // what the WebSocket server needs inside a handle (internal.ts), given once for every handle
    provideInsides({
      is: (turn) => #info in turn,
      ctx: (turn) => (turn as Turn).#ctx,
      seen: (turn) => ({ state: (turn as Turn).#state, info: (turn as Turn).#info }),
      update: (turn, state, info) => (turn as Turn).#update(state, info),
      waiting: (turn) => (turn as Turn).#waiting(),
    });
  }

  #update(state: ConversationState, info: TurnInfo): void {
    this.#state = state;
    this.#info = info;
    this.state = info.state;
    this.stalled = info.stalled === true;
    this.parent = info.parent;
    // copies of what the records hold (approvalOf copies an approval's input): a caller that changes what it is shown
    // changes nothing kept, nor what a turn going on here runs with (the log's records, the memory store's own)
    this.inputs = copyOf(info.inputs);
    this.waiting = info.state === "waiting" ? info.waiting.map(approvalOf) : [];
    this.unfinished =
      info.state === "interrupted" || info.state === "waiting" ? unfinishedOf(info).map((t) => ({ ...t, input: copyOf(t.input) })) : [];
    this.value = copyOf(info.ended?.value) as O | undefined;
    this.error = copyOf(info.ended?.error);
  }

  /** Reads the turn's state again. */
  async refresh(): Promise<this> {
    const state = await this.#ctx.log.read();
    this.#update(state, turnIn(state, this.#ctx.log, this.id));
    return this;
  }

  /** The `Waiting` this turn is told with when it stops for a person (its approvals read afresh). */
  async #waiting(): Promise<Waiting> {
    await this.refresh();
    return new Waiting(this);
  }

  /**
   * Says yes to one waiting approval (`id`), or to all this handle shows (`waiting`, as it last read them: never
   * one the turn asked for since, unseen); the turn goes on here and resolves to its answer.
   */
  async approve(options: { by?: string; id?: string } = {}): Promise<O> {
    const { by, id } = optionsOf("approve", options);
    return this.#answer(this.#settledNow(), { verdict: "yes", by: by ?? null, reason: null, id, among: this.#shown(id) });
  }

  /** Says no, with a reason the model sees (to one, or to all this handle shows, as `approve`); the turn goes on here. */
  async deny(options: { reason?: string; by?: string; id?: string } = {}): Promise<O> {
    const { reason, by, id } = optionsOf("deny", options);
    return this.#answer(this.#settledNow(), { verdict: "no", by: by ?? null, reason: reason ?? null, id, among: this.#shown(id) });
  }

  /**
   * The handle's context with its settings as they are now, at an action's synchronous start (as a send takes its
   * call's): an action goes on with the turn after reading and writing the store, when a `withSettings` block it was
   * called in is over; read then, the turn went on with configure's model (paid unasked), not the block's.
   */
  #settledNow(): ConversationContext {
    const settings = this.#ctx.settings();
    return { ...this.#ctx, settings: () => ({ ...settings }) };
  }

  /**
   * What an answer without an id answers: the approvals this handle shows. Taken as all that wait now, a handle
   * read during one wait, whose turn another person answered and which went on to wait on another call, said yes
   * to that call nobody here was shown (a stream and the WebSocket server hold such an answer to what they showed too).
   */
  #shown(id: string | undefined): ReadonlySet<string> | undefined {
    if (id !== undefined) return undefined;
    const info = this.#info;
    // (with those it saw answered: answering again is told approval-answered, as before, not that nothing was asked)
    const asked = info.state === "waiting" ? info.waiting.map((w) => approvalKey(w.site, w.invocation, pluginOf(w.plugin))) : [];
    return new Set([...asked, ...info.answers.map((a) => approvalKey(a.site, a.invocation, a.plugin))]);
  }

  async #answer(ctx: ConversationContext, answer: Answer): Promise<O> {
    // an answer to all of them: recorded by the run itself, in the append that claims the turn (one write, not two).
    // Not where a lock proves a holder alive (a tab's Web Lock, a database session's): that lock is taken before a
    // lease is written, so an answer given while the turn runs elsewhere would meet the lock (turn-claimed) before
    // its own check (approval-answered); there the answer is written first, as its own append
    if (answer.id === undefined && !ctx.log.store.liveness) return this.#goOn(ctx, this.#state, this.#info, undefined, this.#state.length, answer);
    // (an answer that leaves nothing waiting goes on here: refused with nothing written where it could not run)
    const goesOn = (info: TurnInfo): void => checkRunnable(ctx, info);
    const { state, info, chosen, length } = await this.#current(recordAnswer(this.#ctx.log, this.id, answer, undefined, goesOn));
    this.#update(state, info);
    // others still wait: told as the records now say (read again), never a Waiting that lists nothing to answer once
    // another person answered the rest meanwhile and the turn went on there (its answer when it ended done there)
    if (chosen.length < info.waiting.length) {
      try {
        return (await waitingOrRecorded(this.#ctx.log, this.id, () => this.#waiting())) as O;
      } finally {
        await this.refresh().catch(() => undefined); // current after it, as after its other actions
      }
    }
    return this.#goOn(ctx, state, info, undefined, length);
  }

  /**
   * Goes on with an interrupted turn (or a waiting one whose approvals were
   * answered). Refuses `turn-unfinished` until every tool that may have run
   * is given its result (`results`) or a rerun (`rerun`), by invocation.
   */
  async resume(options: ResumeOptions = {}): Promise<O> {
    options = optionsOf("resume", options);
    const ctx = this.#settledNow();
    // refused before a person's results are written: what this process cannot go on with is left as it is (kept inputs
    // its schema no longer reads; no model here: see #results), and a resume refused here leaves no answer standing
    keptInputs(this.#ctx.def, this.#info.inputs);
    const { state, info, length } = await this.#results(options, ctx);
    return this.#goOn(ctx, state, info, "interrupted", length);
  }

  async #results(options: ResumeOptions, ctx: ConversationContext = this.#ctx): ReturnType<typeof recordResults> {
    try {
      // (a turn that may go on, in a process that cannot run it, is refused before what the person said is written)
      const goesOn = (info: TurnInfo): void => checkRunnable(ctx, info);
      // a result its tool could not have returned (an MCP tool's output schema) is refused, never shown to the model
      const check: ResultCheck = (call, output) => toolAt(this.#ctx.def, call.path)?.checkResult?.(output) ?? null;
      const waiting = (state: ConversationState, info: TurnInfo): Error => (this.#update(state, info), new Waiting(this));
      const answered = await recordResults(this.#ctx.log, this.id, options, waiting, goesOn, check);
      this.#update(answered.state, answered.info);
      return answered;
    } catch (e) {
      if (!(e instanceof Waiting)) await this.refresh().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Goes on with the turn here, as a stream of its events (what was shown
   * before is not shown again). A waiting turn is answered in the stream
   * (`s.approve()`, `s.deny(reason)`), and takes no `results` / `rerun`
   * (`input-invalid`: no tool of it may have run); an interrupted one takes
   * them for its unfinished tools, as `resume` does.
   *
   * @example
   * const s = turn.stream();
   * const answered = s.approve({ by: "maria" }); // its approvals: `s.pending` (shown where they were asked, not again)
   * for await (const e of s) console.log(e.type);
   * await answered;
   * const answer = await s;
   */
  stream(options: ResumeOptions = {}): TurnStream<O> {
    options = optionsOf("stream", options);
    const [state, info] = [this.#state, this.#info]; // as this handle last read it: a stale answer is refused when given (approval-answered)
    const waiting = (): Promise<Error> => this.#waiting();
    const settled = (): Promise<this> => this.refresh(); // current after its stream, as after its other actions
    // the stream listens before the actor starts: its first events (the state it starts in) are shown, numbered from 1
    let stream!: ConversationStream<O>;
    const listen = (session: TurnSession): void => void (stream = new ConversationStream<O>(session, this.#ctx.log, waiting, settled));
    if (info.state === "waiting" && info.waiting.length > 0) {
      refuseToolAnswers(this.id, info, options); // (a result or rerun said here would be dropped unsaid)
      continueTurn(this.#ctx, state, info, "awaitingApproval", { streaming: true, listen });
    } else {
      // what the person said is recorded by the run itself, before it claims the turn (a refusal ends nothing)
      const prepare = async (): Promise<number> => (await this.#results(options)).length;
      // its events shown once the turn is open here: a resume refused (turn-unfinished, turn-claimed: nothing of it
      // written) throws from the loop, as its promise rejects, and shows no `failed` of a turn that goes on as it was
      const opened = (session: TurnSession, host: ConversationHost): void =>
        void (stream = new ConversationStream<O>(session, this.#ctx.log, waiting, settled, host.opened));
      continueTurn(this.#ctx, state, info, "interrupted", { streaming: true, prepare, listen: opened });
    }
    return stream;
  }

  /** Ends the turn without going on. */
  async abandon(): Promise<void> {
    await this.#current(abandonTurn(this.#ctx.log, this.id));
    await this.refresh();
  }

  /** What an action of this handle settles to; refused, the handle reads the turn again first (it is current after it). */
  #current<T>(action: Promise<T>): Promise<T> {
    return action.catch(async (e: unknown) => {
      await this.refresh().catch(() => undefined);
      throw e;
    });
  }

  /** Continues the turn here: rehydrates its actor and replays its journal. */
  async #goOn(
    ctx: ConversationContext,
    state: ConversationState,
    info: TurnInfo,
    start: "interrupted" | undefined,
    length: number,
    answer?: Answer,
  ): Promise<O> {
    const session = continueTurn(ctx, state, info, start, { streaming: false, length, ...(answer ? { answer } : {}) });
    const unlink = linkSignal(session, this.#ctx.signal, { keepWaiting: true }); // (a call going on with its turn: see ConversationContext)
    try {
      return (await resultOrWait(session, this.#ctx.log, () => this.#waiting())) as O;
    } finally {
      unlink();
      // current after its own action: done, failed, waiting again, …
      await this.refresh().catch(() => undefined);
    }
  }
}

/**
 * A conversation's turn stopped for a person: it is saved, and anyone who
 * opens the conversation can answer it (`turn-waiting`).
 *
 * @example
 * try { await chat.send("Refund A-1042") } catch (e) { if (e instanceof Waiting) await e.turn.approve({ by: "maria" }) }
 */
export class Waiting<O = unknown> extends ConversationError {
  readonly turn: Turn<O>;
  readonly approvals: Approval[];
  /**
   * Set when the approvals wait in a delegated program's turn, not in `turn`
   * (the caller's, which reads `interrupted`): the conversation and turn a
   * person answers them in. Once they are answered there, `turn.resume()`
   * goes on with the caller, taking the delegated turn's answer.
   */
  declare readonly delegated?: { conversation: string; turn: string };
  constructor(turn: Turn<O>) {
    const names = turn.waiting.map((a) => `${a.path} #${a.invocation}`).join(", ");
    super(
      "turn-waiting",
      `turn ${turn.id} waits for a person's answer (${names}): turn.approve({ by }) or turn.deny({ reason }), from this process or any other.`,
    );
    this.name = "Waiting";
    this.turn = turn;
    this.approvals = turn.waiting;
  }
}
