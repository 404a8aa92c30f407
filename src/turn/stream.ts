import type { Approval } from "../approval/types.js";
import { FunctaiError, describeValue } from "../errors.js";
import { LeaseLost } from "../engine/runtime.js";
import type { TurnEvent } from "./events.js";
import { EventQueue } from "./queue.js";
import type { TurnActor } from "./actor.js";
import type { TurnSession } from "./session.js";

/** How a stream's answers reach the turn: straight to the actor, or (conversations) recorded first. */
export interface StreamControls {
  approve(options: { id?: string; by?: string | null }): Promise<void>;
  deny(reason: string | undefined, options: { id?: string; by?: string | null }): Promise<void>;
  abort(): void;
  /** Conversations: iteration ends when the turn waits (saved) and nobody here has answered. */
  endsWhenWaiting: boolean;
}

/**
 * Refuses answer arguments of the wrong kind (a JavaScript caller, a cast), before anything is answered:
 * a `deny({ reason })` meant for a conversation's turn would otherwise show the model "[object Object]".
 */
function checkAnswer(options: unknown, reason: unknown): void {
  const { id, by } = (typeof options === "object" && options !== null ? options : {}) as { id?: unknown; by?: unknown };
  // a key that is no option (`{ ID }`, `{ ids }`) was read as "no id": a yes meant for one approval said yes to all
  const odd = typeof options === "object" && options !== null ? Object.keys(options).filter((k) => k !== "id" && k !== "by") : [];
  const problem =
    typeof options !== "object" || options === null || Array.isArray(options)
      ? `the options are { id?, by? }, not ${describeValue(options, 80)}`
      : odd.length > 0
        ? `the options are { id?, by? }; ${odd.map((k) => JSON.stringify(k).slice(0, 60)).join(", ")} ${odd.length === 1 ? "is not one" : "are not"}; nothing was answered`
        : id !== undefined && typeof id !== "string"
        ? `id is an approval's id (a string), not ${describeValue(id, 80)}`
        : by !== undefined && by !== null && typeof by !== "string"
          ? `by is a string or null, not ${describeValue(by, 80)}`
          : reason !== undefined && reason !== null && typeof reason !== "string"
            ? `the reason is a string, not ${describeValue(reason, 80)}`
            : null;
  if (problem) throw new FunctaiError("input-invalid", `${problem}: s.approve({ id, by }), s.deny(reason, { id, by })`);
}

/** Each stream's session, for `letGo` (kept off the stream's public face). */
const sessions = new WeakMap<TurnStream<unknown>, TurnSession>();

/**
 * Lets go of a conversation's turn here as this process's exit would, at
 * once (a server that closes, adapters/websocket): it reads `interrupted`,
 * resumable anywhere (see `ConversationHost.letGo`). A turn of no
 * conversation has nothing saved to resume: it is stopped. Internal: not
 * exported from the package.
 */
export function letGo(s: TurnStream<unknown>): Promise<void> {
  const host = sessions.get(s)?.host as { letGo?: (lost: LeaseLost) => Promise<void> } | undefined;
  if (!host?.letGo) {
    s.abort();
    return Promise.resolve();
  }
  return host.letGo(new LeaseLost(`turn ${s.turn} was let go here (its server closed): it goes on where it is resumed`));
}

/**
 * A turn as it happens: an `AsyncIterable<TurnEvent>` that is also a promise
 * of the result. Events are buffered (a slow consumer loses none); breaking
 * out of `for await` stops a turn that still runs.
 *
 * @example
 * const s = desk.using({ approve: "changes" }).stream("Refund A-1042, please.");
 * for await (const e of s) if (e.type === "approval") s.approve();
 * const answer = await s;
 */
export class TurnStream<T = unknown> implements AsyncIterable<TurnEvent<T>>, PromiseLike<T> {
  readonly turn: string;
  readonly #session: TurnSession;
  readonly #controls: StreamControls;
  readonly #queue = new EventQueue<TurnEvent>();
  #ended = false;
  #iterating = false;
  #answering = 0;
  readonly #result: Promise<T>;

  constructor(session: TurnSession, controls: StreamControls, result: Promise<T>) {
    this.#session = session;
    sessions.set(this as TurnStream<unknown>, session);
    this.#controls = controls;
    this.turn = session.host.turn;
    this.#result = result;
    // a result nobody awaits must not crash the process as an unhandled rejection
    result.catch(() => undefined);
    session.actor.on("*", (event) => this.#queue.push(event as TurnEvent));
    session.actor.subscribe({ next: () => this.#queue.poke(), error: () => this.#end(), complete: () => this.#end() });
  }

  #end(): void {
    this.#ended = true;
    this.#queue.poke();
  }

  /** The actor's state: `running`, `awaitingApproval`, `interrupted`, `done`, … */
  get state(): string {
    return String(this.#session.actor.getSnapshot().value);
  }

  /**
   * The turn's XState actor, typed as {@link TurnActor} (`actor.getSnapshot()`,
   * `actor.getPersistedSnapshot()`); `functai/machine` has the machine itself.
   */
  get actor(): TurnActor {
    return this.#session.actor;
  }

  /**
   * The approvals waiting for an answer, as a new array each time: the actor's own, tidied in place by a caller
   * (a splice once one is answered), would leave the turn with nothing it could be answered for.
   */
  get pending(): Approval[] {
    return this.#session.actor.getSnapshot().context.pending.slice();
  }

  #finished(): boolean {
    if (this.#ended || this.#session.actor.getSnapshot().status !== "active") return true;
    // an interrupted turn goes on with nobody here (a person resumes it through a new handle, with its own stream)
    const state = this.state;
    if (state === "interrupted") return true;
    return this.#controls.endsWhenWaiting && this.#answering === 0 && state === "awaitingApproval";
  }

  async *#events(): AsyncGenerator<TurnEvent<T>, void, undefined> {
    try {
      // the done event carries the turn's own result
      yield* this.#queue.drain(() => this.#finished()) as AsyncGenerator<TurnEvent<T>, void, undefined>;
    } finally {
      this.#leave();
    }
  }

  /**
   * The events were left early (break, throw, the iterator's `return()`): the turn is stopped, whether it runs
   * or waits here in this process (nobody could answer it any more: the actor would leak); only a waiting or
   * interrupted conversation turn stays, saved. Nothing to do once the actor ended.
   */
  #leave(): void {
    const state = this.state;
    const saved = this.#controls.endsWhenWaiting && (state === "awaitingApproval" || state === "interrupted");
    if (this.#session.actor.getSnapshot().status === "active" && !saved) this.abort();
  }

  /** The turn's events as they happen (`for await`); breaking out stops a turn that still runs. */
  [Symbol.asyncIterator](): AsyncIterator<TurnEvent<T>> {
    if (this.#iterating) throw new FunctaiError("turn-state", "a TurnStream can be iterated once");
    this.#iterating = true;
    const events = this.#events();
    // a generator returned (or thrown into) before its first next() never runs its body, nor so its finally; and
    // one whose next() still waits queues return() behind it, for an event that may never come (a turn waiting for
    // a person): leaving is done first here, so an iterator left at any time stops the turn as a break does
    return {
      next: () => events.next(),
      return: (value?: PromiseLike<void> | void) => {
        this.#leave();
        return events.return(value as void);
      },
      throw: (error?: unknown) => {
        this.#leave();
        return events.throw(error);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    } as AsyncIterableIterator<TurnEvent<T>>;
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#result.then(onfulfilled, onrejected);
  }

  /** As a promise's `catch`: the turn's failure. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#result.catch(onrejected);
  }

  /** As a promise's `finally`. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#result.finally(onfinally);
  }

  #answer(run: () => Promise<void>, options: unknown, reason?: unknown): Promise<void> {
    this.#answering += 1;
    const answered = (async () => {
      try {
        checkAnswer(options, reason);
        await run();
      } finally {
        this.#answering -= 1;
        this.#queue.poke();
      }
    })();
    // answered from inside a for-await without awaiting: a refusal must not crash the process
    answered.catch(() => undefined);
    return answered;
  }

  /**
   * Says yes to one waiting approval (`id`), or to all of them. The same answer again changes nothing; an answer
   * the turn could never take is refused: `turn-state` once the turn ended or before it asked anything,
   * `approval-unknown` for an id it never asked about, `approval-answered` for one already answered otherwise,
   * `input-invalid` for options of the wrong kind (or a key that is none of `id` and `by`).
   */
  approve(options: { id?: string; by?: string | null } = {}): Promise<void> {
    return this.#answer(() => this.#controls.approve(options), options);
  }

  /** Says no, with a reason the model sees (refused as `approve` is). */
  deny(reason?: string, options: { id?: string; by?: string | null } = {}): Promise<void> {
    return this.#answer(() => this.#controls.deny(reason, options), options, reason);
  }

  /** Stops the turn (a turn that already ended stays as it is). */
  abort(): void {
    this.#controls.abort();
  }
}
