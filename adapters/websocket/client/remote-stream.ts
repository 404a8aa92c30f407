import type { Approval } from "../../../src/approval/types.js";
import type { TurnEvent } from "../../../src/turn/events.js";
import { EventQueue } from "../../../src/turn/queue.js";
import { describeValue } from "../../../src/errors.js";
import { RemoteError } from "../shared/errors.js";
import type { Outcome, WireError } from "../shared/protocol.js";

/** How a remote stream answers approvals and stops (set for caller calls only). */
export interface RemoteControls {
  answer(verdict: "yes" | "no", options: { id?: string; by?: string; reason?: string }): Promise<void>;
  cancel(): void;
}

/**
 * A turn running on a server, as the companion sees it: an
 * `AsyncIterable<TurnEvent>` that is also a promise of the answer (like
 * `TurnStream`). It rejects with a `RemoteError`: `turn-waiting` (with
 * `approvals`) when the turn waits for a person again, the turn's own error
 * when it failed, `remote-closed` when the connection dropped.
 *
 * @example
 * const s = app.call("desk", "Refund A-1042", { approvals: "caller" });
 * for await (const e of s) if (e.type === "approval") void s.approve({ by: "me" });
 * const answer = await s;
 */
export class RemoteStream<T = unknown> implements AsyncIterable<TurnEvent>, PromiseLike<T> {
  /** The turn's id, once its first event or outcome arrived. */
  turn: string | null = null;
  conversation: string | null;
  /** Approvals asked and not answered yet. */
  pending: Approval[] = [];
  /** How it came out (resolves also for failed and waiting turns; rejects only when the request was refused). */
  readonly outcome: Promise<Outcome>;
  readonly #result: Promise<T>;
  readonly #queue = new EventQueue<TurnEvent>();
  #ended = false;
  #settle!: { resolve: (o: Outcome) => void; reject: (e: unknown) => void };
  #iterating = false;

  readonly #takeBack: (() => void) | undefined;

  constructor(
    conversation: string | null,
    readonly controls: RemoteControls | null,
    /** Takes the request back while the companion still holds it (never sent); nothing once it was sent. */
    takeBack?: () => void,
  ) {
    this.conversation = conversation;
    this.#takeBack = takeBack;
    this.outcome = new Promise<Outcome>((resolve, reject) => (this.#settle = { resolve, reject }));
    this.#result = this.outcome.then((o) => {
      if (o.state === "done") return o.value as T;
      if (o.state === "waiting")
        throw new RemoteError({ code: "turn-waiting", message: `turn ${o.turn} waits for a person's answer` }, o.approvals ?? []);
      throw new RemoteError(o.error ?? { code: "turn-state", message: `the turn is ${o.state}` });
    });
    this.outcome.catch(() => undefined);
    this.#result.catch(() => undefined);
  }

  /** An event of this turn arrived (in `conversation`, when it has one). */
  push(event: TurnEvent, conversation: string | null = null): void {
    this.turn ??= event.turn;
    // an owner call into a new conversation learns its name here: should the connection drop, the turn it goes on with can be found
    this.conversation ??= conversation;
    if (event.type === "approval") this.pending = [...this.pending, event.approval];
    if (event.type === "approved") this.pending = this.pending.filter((a) => a.id !== event.approval.id);
    this.#queue.push(event);
  }

  /** Ends the stream with the server's outcome (called by the connection). */
  finish(outcome: Outcome): void {
    this.turn ??= outcome.turn;
    this.conversation ??= outcome.conversation;
    this.#settle.resolve(outcome);
    this.#end();
  }

  /** Ends the stream with the server's error (called by the connection). */
  fail(error: WireError): void {
    this.#settle.reject(new RemoteError(error));
    this.#end();
  }

  #end(): void {
    this.#ended = true;
    this.#queue.poke();
  }

  async *#events(): AsyncGenerator<TurnEvent, void, undefined> {
    yield* this.#queue.drain(() => this.#ended);
    await this.outcome; // a refused request ends the loop with its error
  }

  /** The remote turn's events as the server sends them (`for await`). */
  [Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    if (this.#iterating) throw new RemoteError({ code: "turn-state", message: "a RemoteStream can be iterated once" });
    this.#iterating = true;
    return this.#events();
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#result.then(onfulfilled, onrejected);
  }

  /** As a promise's `catch`: the remote turn's failure (`RemoteError`). */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#result.catch(onrejected);
  }

  /** Says yes to one pending approval (`id`), or all (caller calls only). */
  approve(options: { id?: string; by?: string } = {}): Promise<void> {
    return this.#answer("yes", options);
  }

  /** Says no, with a reason the model sees (caller calls only). */
  deny(reason?: string, options: { id?: string; by?: string } = {}): Promise<void> {
    return this.#answer("no", { ...options, ...(reason === undefined ? {} : { reason }) });
  }

  /** An answer, or its refusal as a rejection: thrown, it would escape a caller's `.catch` (code written for either kind of call). */
  #answer(verdict: "yes" | "no", options: { id?: string; by?: string; reason?: string }): Promise<void> {
    if (!this.controls)
      return Promise.reject(
        new RemoteError({
          code: "turn-state",
          message: 'only a call with approvals "caller" is answered on its stream; answer a conversation\'s turn with app.approve / app.deny',
        }),
      );
    // (a JavaScript caller's slip: null options would fail as a TypeError on reading them, with no code)
    if (typeof options !== "object" || options === null)
      return Promise.reject(
        new RemoteError({
          code: "input-invalid",
          message: `the options are { id?, by? }, not ${describeValue(options, 60)}: s.approve({ id, by }), s.deny(reason, { id, by })`,
        }),
      );
    // without an id: the approvals this stream showed, each by its id. Sent id-less, it answered what waited when it
    // reached the server: a yes sent again before the first came back (a double click on a slow network) approved
    // the tool the turn asked for meanwhile, whose `approval` event was still on its way (unseen). One shown and
    // answered already is refused there (approval-answered)
    const shown = options.id === undefined ? this.pending.map((a) => a.id) : [];
    if (shown.length === 0) return this.controls.answer(verdict, options);
    const controls = this.controls;
    return Promise.all(shown.map((id) => controls.answer(verdict, { ...options, id }))).then(() => undefined);
  }

  /**
   * Stops a call on the server: a caller call, or an owner call's turn (it ends `stopped`, as `abort()` stops a
   * conversation's stream in process; an owner call that already waits for its owner is no longer this stream's, and
   * is abandoned with `app.abandon`). Any other request (an answer, a resume) is taken back while the companion still
   * holds it for the server's limits (it rejects `turn-aborted`, nothing sent); once sent it goes on.
   */
  abort(): void {
    if (this.controls) this.controls.cancel();
    else this.#takeBack?.();
  }
}
