/**
 * What each request does, once the connection checked its key and shape:
 * conversation requests are checked against the key's conversations first
 * (before anything is read, so a refusal says nothing of what exists).
 */
import type { TurnEvent } from "../../../src/turn/events.js";
import type { Connection, Handler, Hub } from "./connection.js";
import { toWireError, wireError } from "../shared/errors.js";
import { allowsConversation, allowsProgram, sameGrant, type Grant } from "./keys.js";
import { allowsTurn, mayJoin, programOfTurn, visibleTo } from "./scope.js";
import type { ClientMessage, Outcome, Subscribed, WireError, WireEvent } from "../shared/protocol.js";
import type { Cursor } from "./backlog.js";
import { startCall } from "./calls.js";
import { unsaidInJson } from "../shared/json.js";
import { abandon, answer, resume, status } from "./runner.js";

type Request = Exclude<ClientMessage, { type: "hello" }>;

/**
 * Sends a turn's event to the connection that asked and to subscribers that may see the turn (its conversation and
 * program). A conversation's event is numbered and kept (see Backlog): a subscriber back after a drop is given it.
 */
function emitter(hub: Hub, conn: Connection, id: string, conversation: () => string | null, program: string | null) {
  return (turnEvent: TurnEvent): void => {
    const event: WireEvent = { ...turnEvent }; // the engine's union, as the loosely checked wire shape
    const c = conversation();
    if (c === null) return conn.send({ type: "event", id, conversation: c, event }); // a caller call is the caller's alone
    // made JSON once: its size as kept, and the frames (the asker's, and the one every subscriber shares), as
    // JSON.stringify({ type, id, conversation, event, n }) makes them. (Its size as sent, UTF-8: counted in UTF-16
    // units, text in CJK took a third of its bytes; byteLength counts, never encodes.)
    const json = JSON.stringify(event);
    const n = hub.backlog.keep(c, program, event, Buffer.byteLength(json));
    const frame = (to: string | null): string =>
      `{"type":"event","id":${JSON.stringify(to)},"conversation":${JSON.stringify(c)},"event":${json},"n":${n}}`;
    conn.sendText(frame(id));
    let shared: string | undefined;
    for (const other of hub.connections) if (other !== conn && mayFollow(hub, other, c, program)) other.sendText((shared ??= frame(null)));
  };
}

/** Whether `conn` is sent the events of a turn of `conversation` and `program` (subscribed, and its key may see them). */
function mayFollow(hub: Hub, conn: Connection, conversation: string, program: string | null): boolean {
  const grant = conn.grant && hub.keys.current(conn.grant);
  return conn.subscribed && grant !== null && allowsTurn(grant, conversation, program);
}

/**
 * Subscribes `conn`. Back after a drop (`after`: the last event it got), it is first sent what it missed that it may
 * see, each once; all of it is done at once, so no event is sent between those and the live ones.
 */
function subscribe(hub: Hub, conn: Connection, id: string, after: Cursor | undefined): void {
  conn.subscribed = true;
  const since = after ? hub.backlog.since(after) : { events: [] };
  if ("events" in since)
    for (const kept of since.events)
      if (mayFollow(hub, conn, kept.conversation, kept.program))
        conn.send({ type: "event", id: null, conversation: kept.conversation, event: kept.event, n: kept.n });
  const result: Subscribed = { server: hub.backlog.server, n: hub.backlog.last, ...("missed" in since ? { missed: since.missed } : {}) };
  conn.send({ type: "reply", id, result });
}

/**
 * Refuses a request that failed, by its id. What is not sent (a bug's cause:
 * `remote-internal`, "see its log"; a store's failure, which may name paths
 * on the server: its code only) is told to the server's log, whichever
 * request it was.
 */
function failed(hub: Hub, conn: Connection, id: string, e: unknown): void {
  const error = toWireError(e);
  if (error.code === "remote-internal" || error.code.startsWith("store-")) hub.log("a request failed", e);
  conn.error(id, error);
}

/** Runs a turn-running request within the connection's limit, replying with its outcome. */
async function run(hub: Hub, conn: Connection, id: string, work: () => Promise<Outcome>): Promise<void> {
  // (turn-running requests only, as the welcome's `maxRuns` says: a status asked meanwhile takes no run's room)
  if (conn.running >= hub.maxRuns) return conn.error(id, wireError("remote-rate-limit", `at most ${hub.maxRuns} requests at once on one connection`));
  conn.running += 1;
  try {
    const outcome = await work();
    conn.send({ type: "reply", id, result: outcome });
  } catch (e) {
    failed(hub, conn, id, e);
  } finally {
    conn.running -= 1;
    // the server changed a conversation: everyone's list is current at once, not at the next poll
    void hub.watcher.refresh();
  }
}

/**
 * The connection's key as the keys are now (`null`: revoked). A request that
 * waited on the store (the waiting list's scan, a turn's records) is
 * answered under this, never under the grant it came in with: `setKeys` may
 * have narrowed the key meanwhile, and the companion was already told what
 * it may see now.
 */
const grantNow = (hub: Hub, conn: Connection): Grant | null => (conn.grant ? hub.keys.current(conn.grant) : null);

/**
 * Why `grant` may not have this request answered, or `null` when it may: its
 * conversation, and, once read (`program`: the program of its turn), the
 * turn's program.
 */
function outOfScope(grant: Grant | null, msg: Request, program?: string | null): WireError | null {
  if (!grant) return wireError("remote-auth", "this key was revoked");
  if (!("conversation" in msg) || msg.conversation === undefined) return null;
  if (!allowsConversation(grant, msg.conversation)) return wireError("remote-forbidden", `this key may not use conversation ${msg.conversation}`);
  // a request about a turn: its program must be the key's too (the same refusal whether or not the turn exists)
  if ("turn" in msg && program !== undefined && !allowsTurn(grant, msg.conversation, program))
    return wireError("remote-forbidden", `this key may not use turns of that program in conversation ${msg.conversation}`);
  return null;
}

/**
 * Why a request's values given as any JSON (a resume's results, a call's input) cannot be taken, or `null`: a number
 * past what JSON reads (`1e400`) is read as Infinity, which the journal would keep as `null`, and the turn would go
 * on with a result (or an input) nobody gave.
 */
function unsaid(msg: Request): WireError | null {
  if (msg.type === "resume")
    for (const [key, value] of Object.entries(msg.results ?? {})) {
      const why = unsaidInJson(value);
      if (why !== undefined)
        return wireError(
          "input-invalid",
          `resume: the result given for ${JSON.stringify(key.slice(0, 100))} cannot be kept as JSON (${why}); nothing was written`.slice(0, 2000),
        );
    }
  if (msg.type === "call") {
    const why = unsaidInJson(msg.input);
    if (why !== undefined) return wireError("input-invalid", `call: the input cannot be kept as JSON (${why}); nothing ran`.slice(0, 2000));
  }
  return null;
}

export function requestHandler(hub: Hub): Handler {
  return async (conn, msg) => {
    // the conversation first, before anything is read (a refusal says nothing of what exists)
    const early = outOfScope(conn.grant, msg) ?? unsaid(msg);
    if (early) return conn.error(msg.id, early);
    let program: string | null = null;
    if ("turn" in msg) {
      try {
        program = await programOfTurn(hub.store, hub.watcher, msg.conversation, msg.turn, hub.clock, hub.names);
      } catch (e) {
        return failed(hub, conn, msg.id, e);
      }
      const refused = outOfScope(grantNow(hub, conn), msg, program);
      if (refused) return conn.error(msg.id, refused);
    }
    switch (msg.type) {
      case "waiting": {
        // a store that could not list its conversations (down, its folder gone) left the list as last read: sent as
        // the answer, a person was told that nothing (or what was) waits, as though it were read now
        const failure = await hub.watcher.refresh();
        if (failure !== undefined) return conn.error(msg.id, toWireError(failure)); // (told to the log by the scan)
        const grant = grantNow(hub, conn);
        if (!grant) return conn.error(msg.id, wireError("remote-auth", "this key was revoked"));
        return conn.send({ type: "reply", id: msg.id, result: visibleTo(grant, hub.watcher.all) });
      }
      case "subscribe":
        return subscribe(hub, conn, msg.id, msg.after);
      case "status":
        return status(hub, msg).then(
          (result) => {
            const refused = outOfScope(grantNow(hub, conn), msg, program);
            if (refused) return conn.error(msg.id, refused);
            conn.send({ type: "reply", id: msg.id, result });
          },
          (e: unknown) => failed(hub, conn, msg.id, e),
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
        const mine = conn.calls.get(msg.call);
        if (!mine) return conn.error(msg.id, wireError("approval-unknown", `no call ${msg.call} of this connection waits for an answer`));
        // answered under the key's limits as they are now: a key that may no longer make this call (setKeys took its
        // program away, or limited it to some conversations, where only owner calls run) may not say yes or no to it
        // either (it may still cancel it)
        const grant = grantNow(hub, conn);
        if (!grant) return conn.error(msg.id, wireError("remote-auth", "this key was revoked"));
        if (!allowsProgram(grant, mine.program) || grant.conversations !== null)
          return conn.error(
            msg.id,
            wireError("remote-forbidden", `this key's limits no longer allow call ${msg.call} (${mine.program.slice(0, 100)}): it cannot answer it`),
          );
        const s = mine.stream;
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
          (e: unknown) => failed(hub, conn, msg.id, e),
        );
      }
      case "cancel": {
        const mine = conn.calls.get(msg.call);
        // an owner call its caller stops (owner: true): its turn is stopped as `abort()` stops a conversation's stream
        // here, now, or as it starts (the cancel came while the call was still being checked)
        const owned = msg.owner === true ? conn.owned.get(msg.call) : undefined;
        if (owned) {
          owned.stop = true;
          owned.halt?.();
          return conn.send({ type: "reply", id: msg.id, result: null });
        }
        // a request in flight that is no caller call (an owner call, an approve: a conversation's turn, for the
        // owner's companions) is not stopped by a cancel, nor told as though it were; one that ended, or was never
        // made, has nothing left to stop: done
        if (!mine && conn.inflight.has(msg.call))
          return conn.error(
            msg.id,
            wireError(
              "turn-state",
              `request ${msg.call} is no call with approvals "caller": cancel does not stop it (a conversation's turn is abandoned once it waits)`,
            ),
          );
        mine?.stream.abort();
        return conn.send({ type: "reply", id: msg.id, result: null });
      }
    }
  };
}

/** Why `grant` may not make this call (before any conversation is read), or `null` when it may. */
function callRefused(grant: Grant | null, msg: Extract<Request, { type: "call" }>): WireError | null {
  if (!grant) return wireError("remote-auth", "this key was revoked");
  if (!allowsProgram(grant, msg.program)) return wireError("remote-forbidden", `this key may not call ${msg.program.slice(0, 100)}`);
  if (msg.conversation !== undefined && !allowsConversation(grant, msg.conversation))
    return wireError("remote-forbidden", `this key may not use conversation ${msg.conversation}`);
  // a key limited to some conversations may only run owner calls in one of them
  if (grant.conversations !== null && (msg.approvals !== "owner" || msg.conversation === undefined))
    return wireError("remote-forbidden", 'this key is limited to some conversations: call with approvals "owner" and one of them');
  // a caller call runs in no conversation (nothing of it is saved): one that names a conversation too is refused, never
  // run with the conversation dropped while its caller believes the turn is kept there
  if (msg.approvals === "caller" && msg.conversation !== undefined)
    return wireError("settings-invalid", 'a call with approvals "caller" runs in no conversation: name a conversation with approvals "owner"');
  // a key names a turn of a conversation: a call that keeps none (a caller call, or a new conversation each time) would
  // run again when sent again, its caller believing it was sent once
  if (msg.key !== undefined && (msg.approvals !== "owner" || msg.conversation === undefined))
    return wireError("settings-invalid", 'a call with a key names its conversation, with approvals "owner": a key names a turn kept there');
  return null;
}

async function call(hub: Hub, conn: Connection, msg: Extract<Request, { type: "call" }>): Promise<void> {
  if (msg.approvals !== "owner") return callChecked(hub, conn, msg, null);
  // an owner call is known from its arrival: its caller may stop it while it is still checked
  const owned: { halt: (() => void) | null; stop: boolean } = { halt: null, stop: false };
  conn.owned.set(msg.id, owned);
  try {
    return await callChecked(hub, conn, msg, owned);
  } finally {
    conn.owned.delete(msg.id);
  }
}

async function callChecked(
  hub: Hub,
  conn: Connection,
  msg: Extract<Request, { type: "call" }>,
  owned: { halt: (() => void) | null; stop: boolean } | null,
): Promise<void> {
  // checked again whenever the keys changed while the conversation was read (`setKeys` may have narrowed this key):
  // the call runs under the key as it is when it starts
  for (let grant = grantNow(hub, conn); ; ) {
    const refused = callRefused(grant, msg);
    if (refused) return conn.error(msg.id, refused);
    // an owner call's turn is recorded under its program's own name: served beside another program of that name, it
    // would be found again as that one (listed, limited and run on by it), so it is not started
    const fn = hub.programs.get(msg.program);
    if (msg.approvals === "owner" && fn !== undefined && !hub.names.findsAgain(msg.program, fn))
      return conn.error(
        msg.id,
        wireError(
          "settings-invalid",
          `${msg.program.slice(0, 100)} records its turns as ${JSON.stringify(fn.name)}, which this server serves as another program: call it with approvals "caller"`,
        ),
      );
    if (msg.approvals === "owner" && msg.conversation !== undefined) {
      let joins: boolean;
      try {
        joins = await mayJoin(grant!, hub.store, msg.conversation, hub.clock, hub.names);
      } catch (e) {
        return failed(hub, conn, msg.id, e);
      }
      if (!joins)
        return conn.error(
          msg.id,
          wireError(
            "remote-forbidden",
            `this key may not call into conversation ${msg.conversation}: it holds turns of programs the key may not use`,
          ),
        );
    }
    const now = grantNow(hub, conn);
    // (by what it allows: compared as objects, a grant made anew at each look never matched, and this went round for ever)
    if (sameGrant(now, grant)) break;
    grant = now;
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
    if (started.stream) conn.calls.set(msg.id, { stream: started.stream, program: msg.program });
    if (owned) {
      owned.halt = started.stop;
      if (owned.stop) started.stop(); // its caller stopped it while it was checked
    }
    try {
      return await started.outcome;
    } finally {
      conn.calls.delete(msg.id);
    }
  });
}
