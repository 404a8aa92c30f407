/**
 * Calling a served program. `approvals: "caller"`: an in-process stream (no
 * conversation) whose approvals go to the caller, answered over the socket.
 * `approvals: "owner"`: a turn of a stored conversation, so the owner's
 * companions see it waiting and answer it from anywhere.
 */
import { newTurnId } from "../../../src/ids.js";
import { ConversationError, FunctaiError, isErrorCode } from "../../../src/errors.js";
import { readConversation } from "../../../src/records/read-conversation.js";
import type { TurnEvent } from "../../../src/turn/events.js";
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
    return { stream, conversation: null, outcome: pump(ctx.runs, stream, null, emit) };
  }
  // a generated id is a valid conversation id: letters, digits and "-"
  const conversation = req.conversation ?? `call-${newTurnId()}`;
  const stream = fn.conversation(conversation, { ...ctx.settings, approve, store: ctx.store }).stream(input) as TurnStream<unknown>;
  const held = new HeldStart(emit);
  const outcome = pump(ctx.runs, stream, conversation, held.emit).then(async (o) => {
    const refused = await refusedUnwritten(ctx, conversation, o);
    if (refused) {
      held.drop();
      throw refused;
    }
    held.flush();
    return o;
  });
  return { stream: null, conversation, outcome };
}

/**
 * The error of a call the conversation refused before writing its turn, or
 * `null` (it ran). A turn there that waits for a person refuses it
 * (`conversation-busy`), as does a conversation whose records cannot be
 * read: a refused request, not a turn that failed. Told as an outcome, it
 * would name a turn id no store holds (a `status` of it: `turn-state`),
 * where the engine's message names the turn to answer first.
 */
async function refusedUnwritten(ctx: RunContext, conversation: string, o: Outcome): Promise<FunctaiError | null> {
  if (o.state !== "failed" || o.error === undefined) return null;
  const state = readConversation(await ctx.store.read(conversation), { now: ctx.clock.now() });
  if (state.turns.has(o.turn)) return null; // (it was written, then failed: an outcome like any other)
  return new ConversationError(isErrorCode(o.error.code) ? o.error.code : "turn-failed", o.error.message);
}

/** The events a turn the conversation refuses sends, before and with its refusal (none is of a turn that was written). */
const isStartOrRefusal = (e: TurnEvent): boolean => (e.type === "state" && (e.state === "running" || e.state === "failed")) || e.type === "failed";

/**
 * An owner call's first events, held back until its turn is known to be
 * written: a turn the conversation refuses still says it started and
 * failed, under an id that is never written, which the caller and every
 * subscriber of the conversation would be told of. Any other event (the
 * turn is under way) lets them through, in order.
 */
class HeldStart {
  #held: TurnEvent[] | null = [];
  constructor(readonly to: Emit) {}

  readonly emit = (event: TurnEvent): void => {
    if (this.#held === null) return this.to(event);
    this.#held.push(event);
    if (!isStartOrRefusal(event)) this.flush();
  };

  flush(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const e of held) this.to(e);
  }

  drop(): void {
    this.#held = null;
  }
}
