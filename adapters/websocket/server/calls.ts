/**
 * Calling a served program. `approvals: "caller"`: an in-process stream (no
 * conversation) whose approvals go to the caller, answered over the socket.
 * `approvals: "owner"`: a turn of a stored conversation, so the owner's
 * companions see it waiting and answer it from anywhere. An owner call with
 * a `key` is sent once per key, as `send(input, { key })` sends one.
 */
import { newTurnId } from "../../../src/ids.js";
import { FunctaiError } from "../../../src/errors.js";
import { streamOnce } from "../../../src/conversation/conversation.js";
import { ConversationLog } from "../../../src/conversation/log.js";
import type { TurnStream } from "../../../src/turn/stream.js";
import type { Outcome } from "../shared/protocol.js";
import { outcomeNow, pump, type AnyProgram, type Emit, type RunContext } from "./runner.js";

export interface CallRequest {
  program: string;
  input: unknown;
  approvals: "caller" | "owner";
  conversation?: string | undefined;
  /** An owner call's request id: sent again, the turn it named answers (checked by the connection: only with a conversation). */
  key?: string | undefined;
}

export interface StartedCall {
  /** The caller's stream (its approvals are answered with `approve` / `deny`); `null` for owner calls. */
  stream: TurnStream<unknown> | null;
  /** Stops the turn, either kind (an owner call's caller may stop it: `cancel` with `owner: true`). */
  stop(): void;
  conversation: string | null;
  outcome: Promise<Outcome>;
}

/** Starts a call; throws (before anything runs) on an unknown program or an invalid input. */
export function startCall(ctx: RunContext, req: CallRequest, emit: Emit): StartedCall {
  const fn = ctx.programs.get(req.program);
  if (!fn) throw new FunctaiError("remote-unknown-program", `this server serves no program ${JSON.stringify(req.program.slice(0, 100))}`);
  // null is the server's own choice (ask nobody), kept; only a setting left out takes the default
  const approve = ctx.settings.approve === undefined ? "changes" : ctx.settings.approve;
  // checked by the program (parseInput): an object, or a single input's value alone
  const input = req.input as Record<string, unknown>;
  if (req.approvals === "caller") {
    const stream = fn.stream(input, { ...ctx.settings, approve }) as TurnStream<unknown>;
    return { stream, stop: () => stream.abort(), conversation: null, outcome: pump(ctx.runs, stream, null, emit) };
  }
  // a generated id is a valid conversation id: letters, digits and "-"
  const conversation = req.conversation ?? `call-${newTurnId()}`;
  const chat = fn.conversation(conversation, { ...ctx.settings, approve, store: ctx.store });
  if (req.key !== undefined) return keyedCall(ctx, chat, conversation, req.key, input, emit);
  // a turn the conversation refuses before writing it (conversation-busy, records that cannot be read) shows no
  // event: its stream's loop throws the refusal (src/conversation/stream.ts), and the call is an error reply
  const stream = chat.stream(input) as TurnStream<unknown>;
  return { stream: null, stop: () => stream.abort(), conversation, outcome: pump(ctx.runs, stream, conversation, emit) };
}

type Chat = ReturnType<AnyProgram["conversation"]>;

/**
 * An owner call with a key, sent once per key (`streamOnce`): a key the conversation holds starts nothing (its
 * turn answers, is waited for while it runs elsewhere, goes on here with its events when interrupted), and the same
 * key with other input is refused (`input-invalid`). Its stream is pumped as an unkeyed call's is, so the server's
 * close lets go of it; until its stream is made (in line behind the head, waiting for its turn elsewhere) the close
 * stops it, nothing written, as it stops an unkeyed call's turn not yet written.
 */
function keyedCall(ctx: RunContext, chat: Chat, conversation: string, key: string, input: Record<string, unknown>, emit: Emit): StartedCall {
  const stopper = new AbortController();
  let stream: TurnStream<unknown> | null = null;
  const stop = (): void => (stream ? stream.abort() : stopper.abort(new FunctaiError("turn-aborted", "the call was stopped")));
  const started = async (): Promise<Outcome> => {
    for (let tries = 1; ; tries++) {
      const got = await streamOnce(chat, input, key, { signal: AbortSignal.any([stopper.signal, ctx.runs.gone]) });
      if ("turn" in got) return outcomeNow({ conversation, turn: got.turn.id }, got.turn);
      stream = got.stream;
      if (stopper.signal.aborted) got.stream.abort(); // its caller stopped it as its turn was written
      const outcome = await pump(ctx.runs, got.stream, conversation, emit, true);
      // another call of this key (a second retry at once) claimed its interrupted turn first: it goes on there, and
      // this one answers as it does (waited for), as a keyed send does, never turn-claimed for a request being answered
      const claimed = outcome.state === "running" && outcome.error?.code === "turn-claimed";
      if (!claimed || tries >= 50 || stopper.signal.aborted || ctx.runs.gone.aborted) return goneOn(ctx, conversation, outcome);
      stream = null;
    }
  };
  return { stream: null, stop, conversation, outcome: started() };
}

/**
 * A keyed call's outcome, where its turn went on here and was refused before it ran (its unfinished tools said
 * nothing of, `turn-unfinished`; ended meanwhile, `turn-state`): told with the state the turn has, not as a turn that failed.
 */
async function goneOn(ctx: RunContext, conversation: string, outcome: Outcome): Promise<Outcome> {
  if (outcome.state !== "failed" || (outcome.error?.code !== "turn-unfinished" && outcome.error?.code !== "turn-state")) return outcome;
  const state = (await new ConversationLog(ctx.store, conversation, ctx.clock).read()).turns.get(outcome.turn)?.state;
  return state === "interrupted" || state === "abandoned" || state === "stopped" ? { ...outcome, state } : outcome;
}
