/**
 * What the adapters (the WebSocket server) need from inside a conversation
 * turn, beside its public methods: record an answer and go on with the turn
 * as a stream. Keyed by the public `Turn` handle, which never shows these.
 */
import type { Approval } from "../approval/types.js";
import type { ConversationState, TurnInfo } from "../records/read-conversation.js";
import type { TurnStream } from "../turn/stream.js";
import type { TurnSession } from "../turn/session.js";
import { recordAnswer, type Answer } from "./answers.js";
import { checkRunnable, continueTurn, type ConversationContext } from "./driver.js";
import type { ConversationHost } from "./host.js";
import { ConversationStream } from "./stream.js";

/** A turn handle's insides, for any handle (one set of functions, not one per handle: a conversation may hold 10,000 turns). */
export interface TurnInsides {
  /** Whether `turn` is a conversation turn handle. */
  is(turn: object): boolean;
  ctx(turn: object): ConversationContext;
  /** The state and turn as the handle last read them. */
  seen(turn: object): { state: ConversationState; info: TurnInfo };
  update(turn: object, state: ConversationState, info: TurnInfo): void;
  /** What the turn rejects with when it stops for a person. */
  waiting(turn: object): Promise<Error>;
}

let insides: TurnInsides | null = null;

/** Given once, by the `Turn` class itself (it alone reaches its private fields). */
export function provideInsides(given: TurnInsides): void {
  insides = given;
}

/** The insides, once `turn` is known to be a handle. */
function insidesFor(turn: object): TurnInsides {
  if (insides === null || !insides.is(turn)) throw new TypeError("not a conversation turn handle");
  return insides;
}

/**
 * Records a yes or no (conditionally: an approval is answered once); the
 * handle is current after it. `chosen` are the approvals it answered.
 */
export async function recordAnswerOf(turn: { readonly id: string }, answer: Answer): Promise<{ chosen: Approval[]; rest: number }> {
  const own = insidesFor(turn);
  const ctx = own.ctx(turn);
  // an answer that leaves nothing waiting is refused, with nothing written, where this process cannot run the turn on
  const { state, info, chosen } = await recordAnswer(ctx.log, turn.id, answer, undefined, (info) => checkRunnable(ctx, info));
  own.update(turn, state, info);
  return { chosen, rest: info.waiting.length - chosen.length };
}

/** Goes on with the turn here as a stream, from where the handle last saw it (what it had already shown is not shown again). */
export function streamOn(turn: { readonly id: string }): TurnStream<unknown> {
  const own = insidesFor(turn);
  const ctx = own.ctx(turn);
  const { state, info } = own.seen(turn);
  // the stream listens before the actor starts: its first events (the state it starts in) are shown, numbered from 1
  let stream!: ConversationStream<unknown>;
  // its events shown once the turn is open here: a claim refused (another process runs it, or it ended first) throws
  // from the loop, as its promise rejects, and shows no `failed` or `interrupted` of a turn that never ran here
  const listen = (session: TurnSession, host: ConversationHost): void =>
    void (stream = new ConversationStream(session, ctx.log, () => own.waiting(turn), undefined, host.opened));
  continueTurn(ctx, state, info, info.state === "interrupted" ? "interrupted" : undefined, { streaming: true, listen });
  return stream;
}
