import { resultOf } from "../turn/run.js";
import type { TurnEvent } from "../turn/events.js";
import type { TurnSession } from "../turn/session.js";
import { TurnStream } from "../turn/stream.js";
import { controls, snapshotKept, type WaitingError } from "./driver.js";
import type { ConversationLog } from "./log.js";

/**
 * A conversation turn as a stream. Its promise resolves with the answer,
 * also when approvals were answered in the stream (`s.approve()` in the
 * loop); it rejects with `Waiting` when the turn waits, saved, and nobody
 * here answers: the loop ended on the wait, or nobody iterates.
 */
export class ConversationStream<T> extends TurnStream<T> {
  readonly #session: TurnSession;
  readonly #toldWaiting: () => void;
  #iterated = false;
  #armed = false;

  constructor(session: TurnSession, log: ConversationLog, waiting: WaitingError) {
    let toldWaiting = (): void => undefined;
    const result = new Promise<T>((resolve, reject) => {
      resultOf<T>(session).then(resolve, reject);
      let told = false;
      toldWaiting = () => {
        if (told) return;
        told = true;
        // its snapshot kept before anyone is told the turn waits
        void snapshotKept(session).then(waiting).then(reject, reject);
      };
    });
    super(session, controls(session, log), result);
    this.#session = session;
    this.#toldWaiting = toldWaiting;
  }

  override [Symbol.asyncIterator](): AsyncIterator<TurnEvent<T>> {
    const events = super[Symbol.asyncIterator]();
    this.#iterated = true;
    return {
      next: async () => {
        const step = await events.next();
        // the loop ended while the turn waits and nobody here answered: it is saved, and the promise says so
        if (step.done && this.state === "awaitingApproval") this.#toldWaiting();
        return step;
      },
      return: (value?: unknown) => events.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
      throw: (e?: unknown) => events.throw?.(e) ?? Promise.reject(e),
    };
  }

  /** Awaited without a loop: nobody here will answer a wait. */
  #arm(): void {
    if (this.#iterated || this.#armed) return;
    this.#armed = true;
    const check = (): void => {
      if (!this.#iterated && this.#session.actor.getSnapshot().value === "awaitingApproval") this.#toldWaiting();
    };
    this.#session.actor.subscribe(check);
    check();
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.#arm();
    return super.then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    this.#arm();
    return super.catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    this.#arm();
    return super.finally(onfinally);
  }
}
