import { ConversationError } from "../errors.js";
import { resultOf } from "../turn/run.js";
import type { TurnEvent } from "../turn/events.js";
import { takeCommands, type TurnSession } from "../turn/session.js";
import type { TurnCommand } from "../turn/context.js";
import { TurnStream } from "../turn/stream.js";
import { controls, snapshotKept, stoppedFor, waitingOrRecorded, type WaitingError } from "./driver.js";
import type { ConversationLog } from "./log.js";

/** How each answer sent to a conversation turn's actor is given instead (it is recorded before the actor takes it). */
const INSTEAD: Record<string, string> = {
  APPROVE: "s.approve({ id, by })",
  DENY: "s.deny(reason, { id, by })",
  RESUME: "a handle's resume() (chat.turn(id))",
  ABANDON: "a handle's abandon() (chat.turn(id))",
};

/**
 * A command a user sends a conversation turn's actor (`s.actor.send`). Sent straight, an APPROVE ran the turn on
 * with no `approval` record (who said yes lost; a resume elsewhere asks again), and a STOP while it waited left its
 * records `waiting` (a person's later yes ran what the caller was told had stopped). So: a STOP is the stream's
 * `abort()` (recorded as the stream's is), answers and the other commands are refused (`turn-state`), naming the
 * call that records them; anything else goes to the actor as it is.
 */
function commandOf(turn: string, command: TurnCommand, send: (command: TurnCommand) => void, answers: ReturnType<typeof controls>): void {
  const type = typeof command === "object" && command !== null ? (command as { type?: unknown }).type : undefined;
  if (type === "STOP") {
    const { reason } = command as { reason?: unknown };
    return answers.abort(typeof reason === "string" && reason !== "" ? reason : undefined);
  }
  if (typeof type === "string" && Object.hasOwn(INSTEAD, type))
    throw new ConversationError(
      "turn-state",
      `turn ${turn} is a conversation's: its answers are recorded before its actor takes them, so ${type} is not sent to the actor; use ${INSTEAD[type]}`,
    );
  send(command);
}

/**
 * A conversation turn as a stream. Its promise resolves with the answer,
 * also when approvals were answered in the stream (`s.approve()` in the
 * loop); it rejects with `Waiting` when the turn waits, saved, and nobody
 * here answers: the loop ended on the wait, was left (`break`) while the
 * turn waits, or nobody iterates. A turn another process answered meanwhile
 * settles as its records say (see waitingOrRecorded), never as `Waiting`.
 * Answers are taken only for approvals the turn asks (refused as a plain
 * stream's are; given again once it went on, `approval-answered`), and
 * `abort()` while the turn waits ends it `stopped` in its records (see
 * `controls`). Once its promise was settled on the wait, an answer here is
 * refused (`turn-state`): taken, the turn would go on here with nobody told
 * (the promise already said `Waiting`), and the person answering the
 * `Waiting` would be refused as though someone else had.
 */
export class ConversationStream<T> extends TurnStream<T> {
  readonly #session: TurnSession;
  readonly #toldWaiting: () => void;
  /** Whether the promise was settled on the wait (told as saved). */
  readonly #wasTold: () => boolean;
  #iterated = false;
  /** The loop was left early (`break`, a throw): nobody here answers a wait any more, except answers on their way. */
  #left = false;
  #watching = false;
  /** Answers given here and not settled yet: the turn may still go on here. */
  #answers = 0;
  /** A sent turn's first records appended, or a continued turn opened here (or refused): see the iterator. */
  #written: Promise<unknown> | undefined;

  /**
   * `settled`: run before the promise settles with the turn's end (a turn handle reads the turn again: it is current
   * after its stream). `written`: a turn just sent, its first records on their way, or a continued one being opened
   * here (what a person said recorded, the turn claimed): see the iterator.
   */
  constructor(session: TurnSession, log: ConversationLog, waiting: WaitingError, settled?: () => Promise<unknown>, written?: Promise<unknown>) {
    let toldWaiting = (): void => undefined;
    let told = false;
    const result = new Promise<T>((resolve, reject) => {
      const settle = (outcome: Promise<T>): void =>
        void (settled ? outcome.finally(() => settled().catch(() => undefined)) : outcome).then(resolve, reject);
      // (a run stopped because a delegated turn waits is told as a wait too: see stoppedFor)
      settle(resultOf<T>(session).catch((e: unknown) => stoppedFor(e, waiting)));
      toldWaiting = () => {
        if (told) return;
        told = true;
        // its snapshot kept before anyone is told the turn waits; told as its records, read again, say
        settle(snapshotKept(session).then(() => waitingOrRecorded(log, session.host.turn, waiting) as Promise<T>));
      };
    });
    const answers = controls(session, log);
    super(session, answers, result);
    this.#session = session;
    // what a user sends the actor itself (`s.actor.send`) is recorded first, or refused: never taken unrecorded
    takeCommands(session, (command, send) => commandOf(session.host.turn, command, send, answers));
    this.#toldWaiting = toldWaiting;
    this.#wasTold = () => told;
    this.#written = written;
  }

  /**
   * A turn just sent is shown once its first records are in the store: its events (kept meanwhile) are of a turn
   * anyone may read. A send the conversation refused (`conversation-busy`, a store that cannot be read, stopped
   * while in line) wrote nothing: the loop throws the refusal, as the promise rejects with it, and shows no event
   * of a turn no store holds (nor `failed` for one that never ran). So for a continued turn's resume refused before
   * it ran here (`turn-unfinished`, `turn-claimed`): the turn is as it was, not failed.
   */
  override [Symbol.asyncIterator](): AsyncIterator<TurnEvent<T>> {
    const events = super[Symbol.asyncIterator]();
    this.#iterated = true;
    let written = this.#written; // (awaited once: later events wait for nothing)
    let refused = false;
    return {
      next: async () => {
        if (refused) return { done: true, value: undefined };
        if (written) {
          const first = written;
          written = undefined;
          await first.catch((e: unknown) => {
            refused = true;
            throw e;
          });
        }
        const step = await events.next();
        // the loop ended while the turn waits and nobody here answered: it is saved, and the promise says so
        if (step.done && this.state === "awaitingApproval") this.#toldWaiting();
        return step;
      },
      return: (value?: unknown) => this.#leave(events.return?.(value) ?? Promise.resolve({ done: true, value: undefined })),
      throw: (e?: unknown) => this.#leave(events.throw?.(e) ?? Promise.reject(e)),
    };
  }

  /** The loop was left: a turn that waits (or comes to wait once the answers on their way are in) is told as saved. */
  #leave<R>(left: Promise<R>): Promise<R> {
    this.#left = true;
    this.#watch();
    return left;
  }

  /** Awaited without a loop: nobody here will answer a wait. */
  #arm(): void {
    if (!this.#iterated) this.#watch();
  }

  /** From now on, a wait nobody here answers rejects the promise with `Waiting`. */
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    this.#session.actor.subscribe(this.#check);
    this.#check();
  }

  readonly #check = (): void => {
    if ((this.#left || !this.#iterated) && this.#answers === 0 && this.#session.actor.getSnapshot().value === "awaitingApproval") this.#toldWaiting();
  };

  /** An answer given here: until it settles, the turn may go on here (it is not told as saved meanwhile). */
  #answering(answered: Promise<void>): Promise<void> {
    this.#answers += 1;
    const settled = (): void => {
      this.#answers -= 1;
      if (this.#watching) this.#check();
    };
    answered.then(settled, settled);
    return answered;
  }

  override approve(options: { id?: string; by?: string | null } = {}): Promise<void> {
    return this.#refusedOnceTold() ?? this.#answering(super.approve(options));
  }

  override deny(reason?: string, options: { id?: string; by?: string | null } = {}): Promise<void> {
    return this.#refusedOnceTold() ?? this.#answering(super.deny(reason, options));
  }

  /** The refusal of an answer given after the promise was settled on the wait, else undefined. */
  #refusedOnceTold(): Promise<never> | undefined {
    if (!this.#wasTold()) return undefined;
    const turn = this.#session.host.turn;
    return Promise.reject(
      new ConversationError(
        "turn-state",
        `turn ${turn} was told saved, waiting (this stream's promise rejected with Waiting): answer it on the Waiting's turn (e.turn.approve() or e.turn.deny()), or on a handle from turns()`,
      ),
    );
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
