/**
 * Calling a served program. `approvals: "caller"`: an in-process stream (no
 * conversation) whose approvals go to the caller, answered over the socket.
 * `approvals: "owner"`: a turn of a stored conversation, so the owner's
 * companions see it waiting and answer it from anywhere. An owner call with
 * a `key` is sent as `send(input, { key })` sends it: once per key.
 */
import { newTurnId } from "../../../src/ids.js";
import { FunctaiError, isFunctaiError } from "../../../src/errors.js";
import { keyOf } from "../../../src/conversation/conversation.js";
import { ConversationLog } from "../../../src/conversation/log.js";
import { Waiting } from "../../../src/conversation/turn.js";
import type { TurnInfo } from "../../../src/records/read-conversation.js";
import type { TurnStream } from "../../../src/turn/stream.js";
import { toWireError } from "../shared/errors.js";
import type { Outcome } from "../shared/protocol.js";
import { pump, type AnyProgram, type Emit, type RunContext } from "./runner.js";

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
  if (req.key !== undefined) return keyedCall(ctx, chat, conversation, req.key, input);
  // a turn the conversation refuses before writing it (conversation-busy, records that cannot be read) shows no
  // event: its stream's loop throws the refusal (src/conversation/stream.ts), and the call is an error reply
  const stream = chat.stream(input) as TurnStream<unknown>;
  return { stream: null, stop: () => stream.abort(), conversation, outcome: pump(ctx.runs, stream, conversation, emit) };
}

type Chat = ReturnType<AnyProgram["conversation"]>;

/**
 * An owner call with a key, sent as `send(input, { key })` sends it: a key the conversation holds starts nothing
 * (its turn answers, waits for it while it runs elsewhere, goes on with it when interrupted), and the same key with
 * other input is refused (`input-invalid`). `send` shows no events: only the outcome is told. The server's close
 * can only stop it (`stopped`): it holds no stream to let go of.
 */
function keyedCall(ctx: RunContext, chat: Chat, conversation: string, key: string, input: Record<string, unknown>): StartedCall {
  const stopper = new AbortController();
  const stop = (): void => stopper.abort(new FunctaiError("turn-aborted", "the call was stopped"));
  const outcome = ctx.runs.hold(stop, () => keyedOutcome(ctx, chat, conversation, key, input, stopper.signal));
  return { stream: null, stop, conversation, outcome };
}

async function keyedOutcome(
  ctx: RunContext,
  chat: Chat,
  conversation: string,
  key: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Outcome> {
  try {
    const value: unknown = await chat.send(input, { key, signal });
    const turn = await keyedTurn(ctx, conversation, key);
    if (!turn) throw new FunctaiError("remote-internal", `conversation ${conversation} holds no turn for the key of a call it answered`);
    return { conversation, turn: turn.id, state: "done", value };
  } catch (e) {
    // (approvals that wait in a delegated turn are answered there, not in this turn: it reads interrupted until then)
    if (e instanceof Waiting && e.delegated) return { conversation, turn: e.turn.id, state: "interrupted", error: toWireError(e, "turn") };
    if (e instanceof Waiting) return { conversation, turn: e.turn.id, state: "waiting", approvals: e.approvals };
    // refused before its turn was written (conversation-busy, stopped in line), or its key given with other input:
    // an error reply, as a call's refusal is; a turn of this key that ended is told as its outcome
    const turn = isFunctaiError(e, "input-invalid") ? undefined : await keyedTurn(ctx, conversation, key).catch(() => undefined);
    if (!turn) throw e;
    const error = toWireError(e, "turn");
    // (another process claimed it first: it goes on there, as a call's turn taken over is told)
    if (error.code === "turn-claimed") return { conversation, turn: turn.id, state: "running", error };
    const ended = turn.state === "failed" || turn.state === "stopped" || turn.state === "abandoned" || turn.state === "interrupted";
    if (!ended) throw e;
    return { conversation, turn: turn.id, state: turn.state, error };
  }
}

/** The turn a call's key names in a conversation, as now read (`undefined`: none): kept under the request id `send` gives a key. */
async function keyedTurn(ctx: RunContext, conversation: string, key: string): Promise<{ id: string; state: TurnInfo["state"] } | undefined> {
  const log = new ConversationLog(ctx.store, conversation, ctx.clock);
  const state = await log.read();
  const id = log.requested(keyOf(key)!);
  const info = id === undefined ? undefined : state.turns.get(id);
  return info && { id: info.id, state: info.state };
}
