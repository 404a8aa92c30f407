import type { Approval } from "../approval/types.js";
import { FunctaiError } from "../errors.js";
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

  /** The approvals waiting for an answer. */
  get pending(): Approval[] {
    return this.#session.actor.getSnapshot().context.pending;
  }

  #finished(): boolean {
    if (this.#ended || this.#session.actor.getSnapshot().status !== "active") return true;
    return this.#controls.endsWhenWaiting && this.#answering === 0 && this.state === "awaitingApproval";
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
   * or waits here in this process (nobody could answer it any more: the actor would leak); only a waiting
   * conversation turn stays, saved. Nothing to do once the actor ended.
   */
  #leave(): void {
    const saved = this.#controls.endsWhenWaiting && this.state === "awaitingApproval";
    if (this.#session.actor.getSnapshot().status === "active" && !saved) this.abort();
  }

  /** The turn's events as they happen (`for await`); breaking out stops a turn that still runs. */
  [Symbol.asyncIterator](): AsyncIterator<TurnEvent<T>> {
    if (this.#iterating) throw new FunctaiError("turn-state", "a TurnStream can be iterated once");
    this.#iterating = true;
    const events = this.#events();
    // a generator returned (or thrown into) before its first next() never runs its body, nor so its finally:
    // leaving is checked here too, so an iterator left at once stops the turn as a break does
    return {
      next: () => events.next(),
      return: (value?: PromiseLike<void> | void) => events.return(value as void).finally(() => this.#leave()),
      throw: (error?: unknown) => events.throw(error).finally(() => this.#leave()),
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

  #answer(run: () => Promise<void>): Promise<void> {
    this.#answering += 1;
    const answered = (async () => {
      try {
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

  /** Says yes to one waiting approval (`id`), or to all of them. */
  approve(options: { id?: string; by?: string | null } = {}): Promise<void> {
    return this.#answer(() => this.#controls.approve(options));
  }

  /** Says no, with a reason the model sees. */
  deny(reason?: string, options: { id?: string; by?: string | null } = {}): Promise<void> {
    return this.#answer(() => this.#controls.deny(reason, options));
  }

  /** Stops the turn. */
  abort(): void {
    this.#controls.abort();
  }
}
