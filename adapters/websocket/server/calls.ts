/**
 * Calling a served program. `approvals: "caller"`: an in-process stream (no
 * conversation) whose approvals go to the caller, answered over the socket.
 * `approvals: "owner"`: a turn of a stored conversation, so the owner's
 * companions see it waiting and answer it from anywhere.
 */
import { newTurnId } from "../../../src/ids.js";
import { FunctaiError } from "../../../src/errors.js";
import type { TurnStream } from "../../../src/turn/stream.js";
import type { Outcome } from "../shared/protocol.js";
import { pump, type Emit, type RunContext } from "./runner.js";

export interface CallRequest {
  program: string;
  input: unknown;
  approvals: "caller" | "owner";
  conversation?: string | undefined;
}

export interface StartedCall {
  /** The caller's stream (its approvals are answered with `approve` / `deny`); `null` for owner calls. */
  stream: TurnStream<unknown> | null;
  /** The turn's stream, either kind (an owner call's caller may stop it: `cancel` with `owner: true`). */
  running: TurnStream<unknown>;
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
    return { stream, running: stream, conversation: null, outcome: pump(ctx.runs, stream, null, emit) };
  }
  // a generated id is a valid conversation id: letters, digits and "-"
  const conversation = req.conversation ?? `call-${newTurnId()}`;
  // a turn the conversation refuses before writing it (conversation-busy, records that cannot be read) shows no
  // event: its stream's loop throws the refusal (src/conversation/stream.ts), and the call is an error reply
  const stream = fn.conversation(conversation, { ...ctx.settings, approve, store: ctx.store }).stream(input) as TurnStream<unknown>;
  return { stream: null, running: stream, conversation, outcome: pump(ctx.runs, stream, conversation, emit) };
}
