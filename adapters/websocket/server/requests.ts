/**
 * What each request does, once the connection checked its key and shape:
 * conversation requests are checked against the key's conversations first
 * (before anything is read, so a refusal says nothing of what exists).
 */
import type { TurnEvent } from "../../../src/turn/events.js";
import type { Connection, Handler, Hub } from "./connection.js";
import { toWireError, wireError } from "../shared/errors.js";
import { allowsConversation, allowsProgram } from "./keys.js";
import { allowsTurn, mayJoin, programOfTurn, visibleTo } from "./scope.js";
import type { ClientMessage, Outcome, WireEvent } from "../shared/protocol.js";
import { startCall } from "./calls.js";
import { abandon, answer, resume, status } from "./runner.js";

type Request = Exclude<ClientMessage, { type: "hello" }>;

/** Sends a turn's event to the connection that asked and to subscribers that may see the turn (its conversation and program). */
function emitter(hub: Hub, conn: Connection, id: string, conversation: () => string | null, program: string | null) {
  return (turnEvent: TurnEvent): void => {
    const event: WireEvent = { ...turnEvent }; // the engine's union, as the loosely checked wire shape
    const c = conversation();
    conn.send({ type: "event", id, conversation: c, event });
    if (c === null) return; // a caller call is the caller's alone
    for (const other of hub.connections) {
      const grant = other.grant && hub.keys.current(other.grant);
      if (other !== conn && other.subscribed && grant && allowsTurn(grant, c, program))
        other.send({ type: "event", id: null, conversation: c, event });
    }
  };
}

/** Runs a turn-running request within the connection's limit, replying with its outcome. */
async function run(hub: Hub, conn: Connection, id: string, work: () => Promise<Outcome>): Promise<void> {
  if (conn.inflight.size > hub.maxRuns)
    return conn.error(id, wireError("remote-rate-limit", `at most ${hub.maxRuns} requests at once on one connection`));
  try {
    const outcome = await work();
    conn.send({ type: "reply", id, result: outcome });
  } catch (e) {
    const error = toWireError(e);
    if (error.code === "remote-internal") hub.log("a request failed", e);
    conn.error(id, error);
  } finally {
    // the server changed a conversation: everyone's list is current at once, not at the next poll
    void hub.watcher.refresh();
  }
}

export function requestHandler(hub: Hub): Handler {
  return async (conn, msg) => {
    const grant = conn.grant!;
    if ("conversation" in msg && msg.conversation !== undefined && !allowsConversation(grant, msg.conversation))
      return conn.error(msg.id, wireError("remote-forbidden", `this key may not use conversation ${msg.conversation}`));
    // a request about a turn: its program must be the key's too (the same refusal whether or not the turn exists)
    let program: string | null = null;
    if ("turn" in msg) {
      try {
        program = await programOfTurn(hub.store, hub.watcher, msg.conversation, msg.turn, hub.clock);
      } catch (e) {
        return conn.error(msg.id, toWireError(e));
      }
      if (!allowsTurn(grant, msg.conversation, program))
        return conn.error(msg.id, wireError("remote-forbidden", `this key may not use turns of that program in conversation ${msg.conversation}`));
    }
    switch (msg.type) {
      case "waiting":
        await hub.watcher.refresh();
        return conn.send({ type: "reply", id: msg.id, result: visibleTo(grant, hub.watcher.all) });
      case "subscribe":
        conn.subscribed = true;
        return conn.send({ type: "reply", id: msg.id, result: null });
      case "status":
        return status(hub, msg).then(
          (result) => conn.send({ type: "reply", id: msg.id, result }),
          (e: unknown) => conn.error(msg.id, toWireError(e)),
        );
      case "approve":
      case "deny": {
        const verdict = msg.type === "approve" ? "yes" : "no";
        const reason = msg.type === "deny" ? msg.reason : undefined;
        const emit = emitter(hub, conn, msg.id, () => msg.conversation, program);
        return run(hub, conn, msg.id, () => answer(hub, { ...msg, verdict, reason }, emit));
      }
      case "resume":
        return run(hub, conn, msg.id, () =>
          resume(
            hub,
            msg,
            emitter(hub, conn, msg.id, () => msg.conversation, program),
          ),
        );
      case "abandon":
        return run(hub, conn, msg.id, () => abandon(hub, msg));
      case "call":
        return call(hub, conn, msg);
      case "answer": {
        const s = conn.calls.get(msg.call);
        if (!s) return conn.error(msg.id, wireError("approval-unknown", `no call ${msg.call} of this connection waits for an answer`));
        // the in-process stream takes an answer to an approval no longer pending without a word (it is dropped):
        // over the wire the second answer is refused, as for a conversation's turn (an answer takes it off `pending` at once)
        const pending = s.pending;
        if (msg.approval === undefined ? pending.length === 0 : !pending.some((a) => a.id === msg.approval)) {
          const answered =
            msg.approval === undefined
              ? Object.keys(s.actor.getSnapshot().context.answers).length > 0
              : Object.hasOwn(s.actor.getSnapshot().context.answers, msg.approval);
          if (answered)
            return conn.error(msg.id, wireError("approval-answered", `call ${msg.call}: ${msg.approval ?? "its approvals"} already answered`));
          if (msg.approval === undefined)
            return conn.error(msg.id, wireError("approval-unknown", `call ${msg.call} has no approval waiting for an answer`));
        }
        const options = { ...(msg.approval === undefined ? {} : { id: msg.approval }), by: msg.by ?? null };
        const answered = msg.verdict === "yes" ? s.approve(options) : s.deny(msg.reason, options);
        return answered.then(
          () => conn.send({ type: "reply", id: msg.id, result: null }),
          (e: unknown) => conn.error(msg.id, toWireError(e)),
        );
      }
      case "cancel":
        conn.calls.get(msg.call)?.abort();
        return conn.send({ type: "reply", id: msg.id, result: null });
    }
  };
}

async function call(hub: Hub, conn: Connection, msg: Extract<Request, { type: "call" }>): Promise<void> {
  const grant = conn.grant!;
  if (!allowsProgram(grant, msg.program))
    return conn.error(msg.id, wireError("remote-forbidden", `this key may not call ${msg.program.slice(0, 100)}`));
  // a key limited to some conversations may only run owner calls in one of them
  if (grant.conversations !== null && (msg.approvals !== "owner" || msg.conversation === undefined))
    return conn.error(
      msg.id,
      wireError("remote-forbidden", 'this key is limited to some conversations: call with approvals "owner" and one of them'),
    );
  if (msg.approvals === "owner" && msg.conversation !== undefined) {
    let joins: boolean;
    try {
      joins = await mayJoin(grant, hub.store, msg.conversation, hub.clock);
    } catch (e) {
      return conn.error(msg.id, toWireError(e));
    }
    if (!joins)
      return conn.error(
        msg.id,
        wireError("remote-forbidden", `this key may not call into conversation ${msg.conversation}: it holds turns of programs the key may not use`),
      );
  }
  let conversation: string | null = null;
  await run(hub, conn, msg.id, async () => {
    const started = startCall(
      hub,
      msg,
      emitter(hub, conn, msg.id, () => conversation, msg.program),
    );
    conversation = started.conversation;
    if (conversation) hub.watcher.know(conversation);
    if (started.stream) conn.calls.set(msg.id, started.stream);
    try {
      return await started.outcome;
    } finally {
      conn.calls.delete(msg.id);
    }
  });
}
