/**
 * What the adapters (the WebSocket server) need from inside a conversation
 * turn, beside its public methods: record an answer and go on with the turn
 * as a stream. Keyed by the public `Turn` handle, which never shows these.
 */
import type { Approval } from "../approval/types.js";
import type { ConversationState, TurnInfo } from "../records/read-conversation.js";
import type { TurnStream } from "../turn/stream.js";
import { recordAnswer } from "./answers.js";
import { continueTurn, type ConversationContext } from "./driver.js";
import { ConversationStream } from "./stream.js";

/** A turn handle's insides. */
export interface TurnInside {
  readonly ctx: ConversationContext;
  /** The state and turn as the handle last read them. */
  seen(): { state: ConversationState; info: TurnInfo };
  update(state: ConversationState, info: TurnInfo): void;
  /** What the turn rejects with when it stops for a person. */
  waiting(): Promise<Error>;
}

/** Each turn handle's insides (set by the handle itself). */
export const inside = new WeakMap<object, TurnInside>();

function insideOf(turn: object): TurnInside {
  const found = inside.get(turn);
  if (!found) throw new TypeError("not a conversation turn handle");
  return found;
}

/**
 * Records a yes or no (conditionally: an approval is answered once); the
 * handle is current after it. `chosen` are the approvals it answered.
 */
export async function recordAnswerOf(
  turn: { readonly id: string },
  answer: { verdict: "yes" | "no"; by: string | null; reason: string | null; id?: string | undefined },
): Promise<{ chosen: Approval[]; rest: number }> {
  const own = insideOf(turn);
  const { state, info, chosen } = await recordAnswer(own.ctx.log, turn.id, answer);
  own.update(state, info);
  return { chosen, rest: info.waiting.length - chosen.length };
}

/** Goes on with the turn here as a stream, from where the handle last saw it (what it had already shown is not shown again). */
export function streamOn(turn: { readonly id: string }): TurnStream<unknown> {
  const own = insideOf(turn);
  const { state, info } = own.seen();
  const session = continueTurn(own.ctx, state, info, info.state === "interrupted" ? "interrupted" : undefined, { streaming: true });
  return new ConversationStream(session, own.ctx.log, () => own.waiting());
}
