/**
 * The wire protocol of `functai/websocket`, version 1: JSON text frames,
 * each checked with these schemas on both ends.
 *
 * - The client speaks first: `hello` (version, key). Anything else first is
 *   refused and the socket closed.
 * - Every request has an `id` (1–64 chars, unique per connection while in
 *   flight); the server answers it with one `reply` or one `error` carrying
 *   that id. Requests that run a turn (`approve`, `deny`, `resume`, `call`)
 *   first get `event` messages with the same id, then their `reply`.
 * - The server pushes `waiting` (what waits for a person, as this key may see
 *   it) after `welcome` and whenever it changes, and `event` with `id: null`
 *   to connections that sent `subscribe`.
 * - `welcome` may say `heartbeatMs`: the server then sends `heartbeat` at
 *   least that often, so a companion that hears nothing for twice as long
 *   knows the connection is dead (a network that drops without a close
 *   tells neither end) and reconnects.
 * - `welcome` may say `maxPayload`: the largest message (bytes) the server
 *   takes; a companion refuses a larger request itself (the server would
 *   close the connection on it).
 * - `welcome` may say `rate` (`{ perSecond, burst }`: the messages one
 *   connection may send, a token bucket) and `maxRuns` (the requests that
 *   run a turn it may have in flight at once): a companion holds its
 *   requests back to keep within them, as a refusal for the rate is a
 *   strike and enough strikes close the connection.
 * - The server pushes `programs` when what this key may call changed (its
 *   keys were replaced): the list `welcome` gave, as it is now.
 * - Fields and message types added later are optional: a companion drops a
 *   message type it does not know, and a welcome's fields it does not know.
 * - Errors are `{ code, message }`: never a stack, never another
 *   conversation's data.
 *
 * - An `approve` or `deny` without an `approval` id may say `shown`: the ids
 *   of the approvals the companion showed for that turn. Only those are
 *   answered: an approval the turn asked for since (another companion
 *   answered first, or this answer is a retry after a dropped connection)
 *   is never answered unseen; one of them already answered is refused
 *   (`approval-answered`). Without `shown`, every approval waiting when the
 *   answer arrives is answered.
 * - A `call` with `approvals: "owner"` and a `conversation` may say `key`
 *   (a request id, 1–200 chars, as a conversation's `send(input, { key })`
 *   takes): a call whose key the conversation already holds starts nothing
 *   and answers as that turn does (its answer, the approvals it waits for),
 *   so a companion may send it again after a dropped connection. Its events
 *   are sent as any call's are; a server that closes lets go of it, as of
 *   any owner call's turn. A key on a
 *   call that keeps no turn (`approvals: "caller"`, or no conversation) is
 *   refused (`settings-invalid`).
 * - `cancel` stops a caller call; with `owner: true` it stops an owner call's
 *   turn too (it ends `stopped`, as `abort()` of a conversation's stream in
 *   process), also when it arrives before that turn started.
 *
 * - The server numbers the events of conversations' turns it sends (`n` on
 *   `event`, in the order sent, per server) and keeps the latest for a
 *   while. `subscribe` replies `{ server, n }` (this server's id and its
 *   last number); a companion that subscribes again after a dropped
 *   connection says `after: { server, n }` (the last it got) and is sent
 *   the events it may see that came since, each once, before the reply;
 *   when they cannot be given (another server, a restarted one, or more
 *   than it keeps came since) the reply says `missed` instead, and the
 *   companion reads the turns' status again.
 *
 * Version history: 1 — first version; later, within 1: `welcome.heartbeatMs`,
 * `welcome.maxPayload`, `heartbeat`, `programs`, `shown` on `approve` and
 * `deny` (older companions ignore the first four; older servers drop `shown`),
 * `welcome.rate` and `welcome.maxRuns` (ignored by older companions), `owner` on
 * `cancel` (older servers drop it, and refuse the cancel of an owner call), `n` on `event`, `after` on `subscribe` and
 * its reply's `{ server, n, missed }` (an older server replies `null` and drops `after`: nothing is given again), `key` on
 * `call` (an older server drops it: a call sent again runs again).
 */
import { z } from "zod";
import { MAX_TIMER_MS } from "../../../src/runtime/clock.js";
import { isConversationId } from "../../../src/store/types.js";

/**
 * The version of the wire protocol this package speaks.
 *
 * @example
 * PROTOCOL_VERSION; // 1
 */
export const PROTOCOL_VERSION = 1 as const;
/**
 * Versions this build speaks.
 *
 * @example
 * SUPPORTED_VERSIONS.includes(PROTOCOL_VERSION); // true
 */
export const SUPPORTED_VERSIONS: readonly number[] = [1];

const requestId = z.string().min(1).max(64);
const conversationId = z.string().max(200).refine(isConversationId, "not a conversation id");
const turnId = z.string().min(1).max(100);
const approvalId = z.string().min(1).max(500);
/** The longest key a hello carries (serve's keys are held to it too). */
export const MAX_KEY_LENGTH = 1024;
/** The longest short text a message carries: a companion's name, who answered, a program's name. */
export const MAX_SHORT_LENGTH = 200;
const short = z.string().max(MAX_SHORT_LENGTH);
const reason = z.string().max(4000);
/** The approvals an id-less answer is held to (those the companion showed). */
const shown = z.array(approvalId).min(1).max(1000);
/** An owner call's request id (1 to 200 characters, as a conversation's `send` takes it). */
const callKey = z.string().min(1).max(200);

/**
 * An approval on the wire (zod schema).
 *
 * @example
 * const approval = approvalSchema.parse(JSON.parse(text)); // a server's approval, checked
 */
export const approvalSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  effects: z.enum(["reads", "changes"]).nullable(),
  path: z.string(),
  invocation: z.number().int(),
  site: z.string(),
  plugin: z.string().exactOptional(),
  question: z.string().exactOptional(),
});

/**
 * An unfinished tool on the wire (zod schema).
 *
 * @example
 * unfinishedSchema.parse({ invocation: 1, name: "refund", input: { id: "A-1042" }, path: "desk/refund", site: "desk#1" });
 */
export const unfinishedSchema = z.object({ invocation: z.number().int(), name: z.string(), input: z.unknown(), path: z.string(), site: z.string() });

/**
 * A turn that waits for a person: approvals to answer, or (interrupted) a resume, perhaps with results for unfinished tools.
 *
 * @example
 * const entries = waitingEntrySchema.array().parse(payload.waiting);
 * entries.filter((w) => w.state === "waiting").map((w) => w.approvals.length);
 */
export const waitingEntrySchema = z.object({
  conversation: z.string(),
  turn: z.string(),
  program: z.string().nullable(),
  state: z.enum(["waiting", "interrupted"]),
  approvals: z.array(approvalSchema),
  unfinished: z.array(unfinishedSchema),
});

const turnRef = { id: requestId, conversation: conversationId, turn: turnId };

/** Where a subscriber left off: the server that numbered the events it got (see `subscribedSchema`), and the last number. */
const cursorSchema = z.object({ server: z.string().min(1).max(100), n: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

/**
 * The reply to `subscribe`: this server's id and the number of the last event it sent (later ones are numbered
 * after it); `missed` when the `after` given could not be followed (the events since were sent before the reply).
 *
 * @example
 * const { server, n, missed } = subscribedSchema.parse(reply.result);
 */
export const subscribedSchema = z.object({
  server: z.string().min(1).max(100),
  n: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  missed: z.enum(["server-changed", "too-far-behind"]).optional(),
});

/**
 * Every message a companion may send (zod schema; the server checks each one).
 *
 * @example
 * clientMessageSchema.parse({ type: "waiting", id: "1" });
 */
export const clientMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), id: requestId, v: z.number().int(), key: z.string().max(MAX_KEY_LENGTH).optional(), client: short.optional() }),
  z.object({ type: z.literal("waiting"), id: requestId }),
  z.object({ type: z.literal("subscribe"), id: requestId, after: cursorSchema.optional() }),
  z.object({ type: z.literal("status"), ...turnRef }),
  z.object({ type: z.literal("approve"), ...turnRef, approval: approvalId.optional(), shown: shown.optional(), by: short.optional() }),
  z.object({
    type: z.literal("deny"),
    ...turnRef,
    approval: approvalId.optional(),
    shown: shown.optional(),
    by: short.optional(),
    reason: reason.optional(),
  }),
  z.object({
    type: z.literal("resume"),
    ...turnRef,
    results: z.record(z.string().max(600), z.unknown()).optional(),
    rerun: z
      .array(z.union([z.number().int(), z.string().max(600)]))
      .max(1000)
      .optional(),
  }),
  z.object({ type: z.literal("abandon"), ...turnRef }),
  z.object({
    type: z.literal("call"),
    id: requestId,
    program: short,
    input: z.unknown(),
    approvals: z.enum(["caller", "owner"]).default("owner"),
    conversation: conversationId.optional(),
    // a request id, as `send(input, { key })` takes: sent again (after a dropped connection), the same turn answers
    key: callKey.optional(),
  }),
  // an answer to an approval of one of this connection's own `call`s (approvals: "caller")
  z.object({
    type: z.literal("answer"),
    id: requestId,
    call: requestId,
    verdict: z.enum(["yes", "no"]),
    approval: approvalId.optional(),
    by: short.optional(),
    reason: reason.optional(),
  }),
  // `owner: true`: the call is an owner call, and its caller stops its turn (as `abort()` stops a conversation's stream
  // in process: it ends `stopped`); without it, a cancel stops caller calls only (an older server drops the field)
  z.object({ type: z.literal("cancel"), id: requestId, call: requestId, owner: z.literal(true).optional() }),
]);

/**
 * A turn event as sent on the wire (checked loosely: the engine's union may grow).
 *
 * @example
 * const event = wireEventSchema.parse({ type: "text", turn: "01JX…", seq: 3, at: new Date().toISOString(), path: "desk", delta: "Hi" });
 * event.delta; // kept: the schema is loose
 */
export const wireEventSchema = z.looseObject({ type: z.string(), turn: z.string(), seq: z.number(), at: z.string(), path: z.string() });

/**
 * An error on the wire: a code and a message (zod schema).
 *
 * @example
 * const { code, message } = wireErrorSchema.parse({ code: "turn-unknown", message: "no turn 01JX…" });
 */
export const wireErrorSchema = z.object({ code: z.string().max(100), message: z.string().max(4000) });

/**
 * Every message the server may send (zod schema; the client checks each one).
 *
 * @example
 * socket.addEventListener("message", (e) => {
 *   const message = serverMessageSchema.parse(JSON.parse(e.data));
 *   if (message.type === "waiting") render(message.waiting);
 * });
 */
export const serverMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("welcome"),
    id: requestId,
    v: z.number().int(),
    programs: z.array(z.string()),
    heartbeatMs: z.number().int().min(1).max(MAX_TIMER_MS).optional(),
    maxPayload: z.number().int().min(1).optional(),
    // (limits a companion cannot read are taken as unsaid, never as a welcome refused: it sends as before them)
    rate: z
      .object({ perSecond: z.number().positive().finite(), burst: z.number().int().min(1) })
      .optional()
      .catch(undefined),
    maxRuns: z.number().int().min(1).optional().catch(undefined),
  }),
  z.object({ type: z.literal("heartbeat") }),
  z.object({ type: z.literal("programs"), programs: z.array(z.string()) }),
  z.object({ type: z.literal("reply"), id: requestId, result: z.unknown() }),
  z.object({ type: z.literal("error"), id: requestId.nullable(), ...wireErrorSchema.shape }),
  z.object({ type: z.literal("waiting"), waiting: z.array(waitingEntrySchema) }),
  z.object({
    type: z.literal("event"),
    id: requestId.nullable(),
    conversation: z.string().nullable(),
    event: wireEventSchema,
    n: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  }),
]);

/**
 * How a turn run on the server came out: the result of `approve`, `deny`, `resume`, `call`.
 *
 * @example
 * const outcome = outcomeSchema.parse(reply.result);
 * if (outcome.state === "done") console.log(outcome.value);
 */
export const outcomeSchema = z.object({
  conversation: z.string().nullable(),
  turn: z.string(),
  state: z.enum(["done", "failed", "waiting", "stopped", "abandoned", "interrupted", "running"]),
  value: z.unknown().optional(),
  error: wireErrorSchema.optional(),
  approvals: z.array(approvalSchema).optional(),
});

/**
 * The result of `status`.
 *
 * @example
 * const status = statusSchema.parse(reply.result);
 * status.state; // "waiting", "done", …
 */
export const statusSchema = z.object({
  conversation: z.string(),
  turn: z.string(),
  state: z.enum(["running", "waiting", "interrupted", "done", "failed", "abandoned", "stopped"]),
  approvals: z.array(approvalSchema),
  unfinished: z.array(unfinishedSchema),
  value: z.unknown().optional(),
});

/**
 * A message from a companion, as checked.
 *
 * @example
 * const message: ClientMessage = clientMessageSchema.parse(JSON.parse(frame));
 * if (message.type === "approve") console.log(message.conversation, message.turn, message.by);
 */
export type ClientMessage = z.infer<typeof clientMessageSchema>;
/**
 * A message from a companion, as written.
 *
 * @example
 * const hello: ClientMessageInput = { type: "hello", id: "1", v: PROTOCOL_VERSION, key };
 * socket.send(JSON.stringify(hello));
 */
export type ClientMessageInput = z.input<typeof clientMessageSchema>;
/**
 * A message from the server.
 *
 * @example
 * const message: ServerMessage = serverMessageSchema.parse(JSON.parse(frame));
 * if (message.type === "event") console.log(message.event.type);
 */
export type ServerMessage = z.infer<typeof serverMessageSchema>;
/**
 * A turn that waits for a person, as `waiting()` lists it.
 *
 * @example
 * const list: WaitingEntry[] = await app.waiting();
 * for (const w of list) console.log(w.conversation, w.turn, w.state, w.approvals.map((a) => a.name));
 */
export type WaitingEntry = z.infer<typeof waitingEntrySchema>;
/**
 * A turn event on the wire.
 *
 * @example
 * const message = serverMessageSchema.parse(JSON.parse(frame));
 * if (message.type === "event") { const event: WireEvent = message.event; console.log(event.seq, event.type); }
 */
export type WireEvent = z.infer<typeof wireEventSchema>;

/**
 * The reply to `subscribe`, as checked.
 *
 * @example
 * const subscribed: Subscribed = { server: "5f0c…", n: 41 };
 */
export type Subscribed = z.infer<typeof subscribedSchema>;
/**
 * An error on the wire.
 *
 * @example
 * try { await app.status({ conversation: "sam", turn }); }
 * catch (e) { if (e instanceof RemoteError) { const wire: WireError = { code: e.wireCode, message: e.message }; console.log(wire); } }
 */
export type WireError = z.infer<typeof wireErrorSchema>;
/**
 * How a remote turn ended (or that it waits).
 *
 * @example
 * const message = serverMessageSchema.parse(JSON.parse(frame));
 * if (message.type === "reply") { const outcome: Outcome = outcomeSchema.parse(message.result); console.log(outcome.state); }
 */
export type Outcome = z.infer<typeof outcomeSchema>;
/**
 * A turn's status, as `status()` gives it.
 *
 * @example
 * const status: TurnStatus = await app.status({ conversation: "sam", turn });
 * console.log(status.state, status.unfinished.length);
 */
export type TurnStatus = z.infer<typeof statusSchema>;
