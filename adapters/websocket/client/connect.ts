import { z } from "zod";
import { describeError, describeValue, FunctaiError } from "../../../src/errors.js";
import type { TurnEvent } from "../../../src/turn/events.js";
import { RemoteError } from "../shared/errors.js";
import {
  approvalSchema,
  clientMessageSchema,
  outcomeSchema,
  PROTOCOL_VERSION,
  statusSchema,
  subscribedSchema,
  waitingEntrySchema,
  type ClientMessageInput,
  type ServerMessage,
  type TurnStatus,
  type WaitingEntry,
  type WireError,
} from "../shared/protocol.js";
import { RemoteStream } from "./remote-stream.js";
import { unsaidInJson } from "../shared/json.js";
import { Link, type LinkOptions } from "./link.js";
import { Pacer } from "./pace.js";

/**
 * Options of `connect()`: the key, and how to reconnect.
 *
 * @example
 * const app = await connect("ws://127.0.0.1:8787", { key: "k1" } satisfies ConnectOptions);
 */
export interface ConnectOptions extends LinkOptions {}

type TurnRef = { conversation: string; turn: string };
type Listeners = {
  waiting: (waiting: WaitingEntry[]) => void;
  event: (e: { conversation: string; event: TurnEvent }) => void;
  reconnect: () => void;
  close: (e: { code: number; reason: string }) => void;
  /**
   * Back after a dropped connection, events of turns were sent meanwhile that the server cannot give again: this is
   * another server (or it restarted), or more came than it keeps. Read the status of the turns you show.
   */
  missed: (e: { reason: "server-changed" | "too-far-behind" }) => void;
};

interface Pending {
  resolve(result: unknown): void;
  reject(error: RemoteError): void;
  stream?: RemoteStream;
  /** An answer without an approval id: its turn, and the approvals it was held to (`shown`). */
  answer?: IdlessAnswer;
  /** The approvals the server said this answer answered (its `approved` events). */
  answered?: string[];
}

/** An `approve` or `deny` sent without an approval id. */
interface IdlessAnswer {
  /** The turn, as `turnKey` says it. */
  key: string;
  verdict: "yes" | "no";
  /** The approvals it was held to (none known: every one waiting when it arrives). */
  shown: string[] | undefined;
  /**
   * Lost with its connection, held to nothing known (the turn was never shown) and told of nothing it answered: it
   * may have been kept, and answered what waited then. A retry cannot be held to that, and is refused until the
   * turn is read again (`status`, `waiting`).
   */
  unknown?: true;
}

/** Requests that run a turn: the server takes `maxRuns` of them at once from one connection. */
const RUNS_TURN: ReadonlySet<string> = new Set(["approve", "deny", "resume", "abandon", "call"]);

/** The longest a request is held back for the server's rate; one that would wait longer is refused (remote-rate-limit). */
const MAX_HOLD_MS = 8000;

/** A turn's key in the companion's maps (a conversation id never holds a "/"). */
const turnKey = (conversation: string, turn: string): string => `${conversation}/${turn}`;

/**
 * A companion's connection to a functai server: what waits for a person,
 * live, and the answers. Reconnects on its own (unless told not to) and gets
 * the waiting list again. Made by {@link connect}.
 *
 * @example
 * const app = await connect(server.url, { key: "k1" });
 * app.on("waiting", (list) => console.log(list.map((w) => `${w.conversation}: ${w.approvals.map((a) => a.name)}`)));
 * const s = app.approve({ conversation: "sam", turn, by: "maria" });
 * for await (const e of s) if (e.type === "tool_result") console.log(e.name, e.output);
 * console.log(await s);
 */
export class Companion {
  readonly #link: Link;
  readonly #pending = new Map<string, Pending>();
  readonly #listeners: { [K in keyof Listeners]: Set<Listeners[K]> } = {
    waiting: new Set(),
    event: new Set(),
    reconnect: new Set(),
    close: new Set(),
    missed: new Set(),
  };
  #next = 0;
  #subscribed = false;
  /** The last numbered event this companion got, and the server that numbered it: a subscribe after a drop goes on from it. */
  #cursor: { server: string; n: number } | undefined;
  /** Holds requests back to keep within the server's rate and `maxRuns` (as its welcome said). */
  readonly #pacer = new Pacer();
  /**
   * What the server last told this companion waits in each turn (the pushed list, `waiting()`, `status()`, an
   * outcome): the approvals a person was shown. An answer without an id is held to them.
   */
  readonly #shown = new Map<string, string[]>();
  /**
   * Answers without an id whose connection dropped before their reply (they may or may not have been kept): a retry
   * of one (the same turn and verdict, again without an id) is held to what the first was held to, never to what the
   * turn went on to ask for meanwhile, unseen.
   */
  readonly #inDoubt = new Map<string, IdlessAnswer>();
  /** The programs this key may call (as the server last said: its keys may change). */
  programs: string[] = [];
  /** The waiting list last pushed by the server. */
  last: WaitingEntry[] = [];

  constructor(url: string, options: ConnectOptions) {
    this.#link = new Link(url, options, {
      message: (m) => this.#onMessage(m),
      welcome: (programs, again, limits) => {
        this.programs = programs;
        this.#pacer.start(limits);
        // each connection subscribes anew: after a reconnect, and on the first when `on("event")` came before `open()`
        if (this.#subscribed) this.#subscribe();
        if (again) this.#emit("reconnect");
      },
      down: (e) => {
        // what was held back was never sent: refused as such, never left in doubt
        for (const held of this.#pacer.drop()) {
          const p = this.#pending.get(held.id);
          if (p)
            this.#fail(held.id, p, { code: "remote-closed", message: `the connection closed (${e.code}) before this was sent; nothing was sent` });
        }
        // whatever was in flight is lost with the connection; turns the server runs go on there
        for (const [id, p] of this.#pending) {
          if (p.answer) this.#doubt(p.answer, p.answered ?? []);
          // a conversation's turn may go on in the server without us (a caller call's is stopped there): say where to find it
          const s = p.stream;
          const where =
            s?.conversation && s.turn ? `; turn ${s.turn} of conversation ${s.conversation} may go on in the server (see app.status)` : "";
          this.#fail(id, p, { code: "remote-closed", message: `the connection closed (${e.code}${e.reason ? `: ${e.reason}` : ""})${where}` });
        }
        this.#emit("close", e);
      },
    });
  }

  /** Opens the connection and says hello (rejects on a wrong key or an unreachable server). */
  open(): Promise<void> {
    return this.#link.open();
  }

  /** The turns that wait for a person, as this key may see them: `[{ conversation, turn, approvals, … }]`. */
  async waiting(): Promise<WaitingEntry[]> {
    const list = checked(z.array(waitingEntrySchema), await this.#request({ type: "waiting" }));
    this.#showList(list);
    this.#read();
    return list;
  }

  /**
   * Listens: `waiting` (the list, live), `event` (turns the server runs; after a dropped connection, those sent
   * meanwhile come first), `missed` (some could not be given again), `reconnect`, `close`. Returns the unsubscribe.
   */
  on<K extends keyof Listeners>(type: K, listener: Listeners[K]): () => void {
    // (a typo, or "__proto__", would reach Object.prototype; a listener that is no function would fail at each message)
    if (!Object.hasOwn(this.#listeners, type))
      throw new FunctaiError(
        "settings-invalid",
        `app.on: no event ${describeValue(type, 60)}; listen for ${Object.keys(this.#listeners).join(", ")}`,
      );
    if (typeof listener !== "function")
      throw new FunctaiError("settings-invalid", `app.on("${type}"): the listener must be a function, not ${describeValue(listener, 60)}`);
    this.#listeners[type].add(listener);
    if (type === "event" && !this.#subscribed) {
      this.#subscribed = true;
      this.#subscribe();
    }
    return () => this.#listeners[type].delete(listener);
  }

  /**
   * Asks for the events of turns the server runs; after a drop, from the last one got (those missed meanwhile come
   * before the reply, each once). A server that cannot give them says so (`missed`); an older one replies `null`.
   */
  #subscribe(): void {
    const after = this.#cursor ? { after: { ...this.#cursor } } : {};
    void this.#request({ type: "subscribe", ...after }).then(
      (result) => {
        const subscribed = subscribedSchema.safeParse(result);
        this.#cursor = subscribed.success ? { server: subscribed.data.server, n: subscribed.data.n } : undefined;
        if (subscribed.success && subscribed.data.missed) this.#emit("missed", { reason: subscribed.data.missed });
      },
      // refused by the server for its rate (frames that reached it bunched, though sent within it): asked again, held
      // for the rate here; dropped, the listeners were told nothing for as long as the connection lasted. (A
      // connection lost with it subscribes anew once welcomed.)
      (e: RemoteError) => {
        if (e.wireCode === "remote-rate-limit") this.#subscribe();
      },
    );
  }

  /** Says yes (to approval `id`, or all); the server runs the turn on. Await the answer, or iterate its events. */
  approve(options: TurnRef & { by?: string; id?: string }): RemoteStream {
    const wrong = slip("approve", options);
    if (wrong) return refused(wrong);
    const answer = this.#idless(options, "yes");
    if (answer?.unknown) return refused(lostUnseen("approve", options.turn));
    return this.#stream(
      {
        type: "approve",
        conversation: options.conversation,
        turn: options.turn,
        ...opt("by", options.by),
        ...opt("approval", options.id),
        ...opt("shown", answer?.shown),
      },
      options.conversation,
      null,
      undefined,
      answer,
    );
  }

  /** Says no, with a reason the model sees; the server runs the turn on. */
  deny(options: TurnRef & { reason?: string; by?: string; id?: string }): RemoteStream {
    const wrong = slip("deny", options);
    if (wrong) return refused(wrong);
    const answer = this.#idless(options, "no");
    if (answer?.unknown) return refused(lostUnseen("deny", options.turn));
    return this.#stream(
      {
        type: "deny",
        conversation: options.conversation,
        turn: options.turn,
        ...opt("by", options.by),
        ...opt("approval", options.id),
        ...opt("shown", answer?.shown),
        ...opt("reason", options.reason),
      },
      options.conversation,
      null,
      undefined,
      answer,
    );
  }

  /**
   * What an answer without an id is held to: what a lost answer of the same turn and verdict was held to (this one
   * is taken as its retry), else the approvals last shown for the turn. `undefined` for an answer by id.
   */
  #idless(options: TurnRef & { id?: string }, verdict: "yes" | "no"): IdlessAnswer | undefined {
    if (options.id !== undefined || typeof options.conversation !== "string" || typeof options.turn !== "string") return undefined;
    const key = turnKey(options.conversation, options.turn);
    const lost = this.#inDoubt.get(key);
    if (lost?.verdict === verdict) return lost;
    return { key, verdict, shown: this.#shown.get(key) };
  }

  /** An answer without an id lost its connection before the reply: a retry of it is held to the same approvals, or to those it was seen to answer. */
  #doubt(answer: IdlessAnswer, answered: readonly string[]): void {
    if (answered.length > 0) return void this.#inDoubt.set(answer.key, { key: answer.key, verdict: answer.verdict, shown: [...answered] });
    // held to nothing known: on its arrival it answered whatever waited then, which a retry, coming later, cannot name
    // (sent without `shown`, it would answer what the turn asked for since, unseen)
    this.#inDoubt.set(answer.key, answer.shown === undefined ? { ...answer, unknown: true } : answer);
  }

  /** The turns read again (`status`, `waiting`): an answer lost unseen no longer stops the next one (it is held to what was read). */
  #read(keys?: readonly string[]): void {
    for (const [key, lost] of this.#inDoubt) if (lost.unknown && (keys === undefined || keys.includes(key))) this.#inDoubt.delete(key);
  }

  /** The server answered an answer without an id (a reply or a refusal): a later one is no retry of a lost one. */
  #settled(answer: IdlessAnswer | undefined): void {
    if (answer && this.#inDoubt.get(answer.key)?.verdict === answer.verdict) this.#inDoubt.delete(answer.key);
  }

  /** The whole list of what waits (pushed, or asked for): what each turn shows now. */
  #showList(list: readonly WaitingEntry[]): void {
    this.#shown.clear();
    for (const w of list) this.#show(w.conversation, w.turn, w.approvals);
  }

  /** What one turn shows now (none: it waits for no approval). */
  #show(conversation: string | null, turn: string, approvals: readonly { id: string }[] | undefined): void {
    if (conversation === null) return;
    const key = turnKey(conversation, turn);
    const ids = (approvals ?? []).map((a) => a.id);
    // (ids the protocol could not carry as `shown`: the answer goes without, answering what waits, as an older companion's)
    if (ids.length > 0 && ids.length <= 1000 && ids.every((id) => id.length > 0 && id.length <= 500)) this.#shown.set(key, ids);
    else this.#shown.delete(key);
  }

  /** Goes on with an interrupted turn: `results` for tools that did run, `rerun` for those that did not (by invocation). */
  resume(options: TurnRef & { results?: Record<string | number, unknown>; rerun?: (number | string)[] }): RemoteStream {
    const wrong = slip("resume", options) ?? unsaidResults(options.results);
    if (wrong) return refused(wrong);
    return this.#stream(
      {
        type: "resume",
        conversation: options.conversation,
        turn: options.turn,
        ...opt("results", keptResults(options.results)),
        ...opt("rerun", options.rerun),
      },
      options.conversation,
    );
  }

  /** Ends a waiting or interrupted turn without going on. */
  async abandon(options: TurnRef): Promise<void> {
    const wrong = slip("abandon", options);
    if (wrong) throw new RemoteError(wrong);
    await this.#stream({ type: "abandon", conversation: options.conversation, turn: options.turn }, options.conversation).outcome;
  }

  /** A turn's state now. */
  async status(options: TurnRef): Promise<TurnStatus> {
    const wrong = slip("status", options);
    if (wrong) throw new RemoteError(wrong);
    const status = checked(statusSchema, await this.#request({ type: "status", conversation: options.conversation, turn: options.turn }));
    this.#show(status.conversation, status.turn, status.state === "waiting" ? status.approvals : []);
    this.#read([turnKey(status.conversation, status.turn)]);
    return status;
  }

  /**
   * Calls a served program. `approvals: "caller"`: its approvals come to this
   * stream (`s.approve()`, `s.deny(reason)`); `"owner"` (default): it runs in
   * a conversation of the server's store (`conversation`, or a new one) and
   * waits there for the owner's companions. `key` (with `conversation`, an
   * owner call): a request id, as a conversation's `send` takes; the same
   * call sent again with it (after `remote-closed`) starts nothing and
   * answers as its turn does.
   */
  call<T = unknown>(
    program: string,
    input: unknown,
    options: { approvals?: "caller" | "owner"; conversation?: string; key?: string } = {},
  ): RemoteStream<T> {
    const wrong = slip("call", options) ?? unsaidInput(input);
    if (wrong) return refused(wrong);
    const approvals = options.approvals ?? "owner";
    // a caller call runs in no conversation: naming one too is refused here, never sent for the server to refuse (or,
    // an older server, to run with the conversation dropped while the caller believes its turn is kept there)
    if (approvals === "caller" && options.conversation !== undefined)
      return refused({
        code: "settings-invalid",
        message: 'app.call: a call with approvals "caller" runs in no conversation; name a conversation with approvals "owner"',
      });
    // a key names a turn kept in a conversation: on a call that keeps none it would be dropped, and the call sent again run again
    if (options.key !== undefined && (approvals !== "owner" || options.conversation === undefined))
      return refused({
        code: "settings-invalid",
        message: 'app.call: a call with a key names its conversation, with approvals "owner" (a key names a turn kept there)',
      });
    const msg = { type: "call" as const, program, input, approvals, ...opt("conversation", options.conversation), ...opt("key", options.key) };
    const id = this.#id();
    const controls =
      approvals === "caller"
        ? {
            answer: async (verdict: "yes" | "no", o: { id?: string; by?: string; reason?: string }) => {
              await this.#request({ type: "answer", call: id, verdict, ...opt("approval", o.id), ...opt("by", o.by), ...opt("reason", o.reason) });
            },
            cancel: () => {
              // a call still held back (pace.ts) was never sent: taken back, it never runs (a cancel sent for it would
              // find nothing to stop, and the call would go out after it)
              const p = this.#pending.get(id);
              if (p && this.#pacer.withdraw(id))
                return this.#fail(id, p, { code: "turn-aborted", message: "the call was cancelled before it was sent: nothing ran" });
              void this.#request({ type: "cancel", call: id }).catch(() => undefined);
            },
          }
        : null;
    // an owner call's abort() stops its turn on the server once sent (ended `stopped`, as abort() stops a
    // conversation's stream in process); held back, it is taken back and never sent
    const stop = approvals === "owner" ? () => void this.#request({ type: "cancel", call: id, owner: true }).catch(() => undefined) : undefined;
    return this.#stream(msg, options.conversation ?? null, controls, id, undefined, stop) as RemoteStream<T>;
  }

  /** Closes the connection (no reconnect). */
  close(): Promise<void> {
    return this.#link.close();
  }

  #id(): string {
    return `r${++this.#next}`;
  }

  #request(msg: DistributiveOmit<ClientMessageInput, "id">, id = this.#id(), stream?: RemoteStream, answer?: IdlessAnswer): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve, reject, ...(stream ? { stream } : {}), ...(answer ? { answer } : {}) };
      this.#pending.set(id, pending);
      // checked here as the server checks it: what it would refuse as malformed is the caller's input (a conversation
      // id a person typed, a `by` too long), refused with nothing sent. Sent, each is a strike, and enough of them
      // close the connection as abusive (4429), failing every request in flight with it
      const shape = clientMessageSchema.safeParse({ ...msg, id });
      if (!shape.success) {
        const issue = shape.error.issues[0];
        const where = issue?.path.join(".") || "the request";
        return this.#fail(id, pending, {
          code: "input-invalid",
          message: `app.${msg.type}: ${where}: ${issue?.message ?? "not understood"}; nothing was sent`.slice(0, 300),
        });
      }
      const read = msg.type === "waiting" || msg.type === "status";
      // a request that would wait long for the server's rate is refused now, nothing sent, rather than held for ever
      // (a cancel is held as long as it takes, never refused: dropped, the call it was to stop would run on unsaid; so
      // is a subscribe: its refusal reaches nobody, and the `event` listeners would be told nothing, unsaid)
      const delay = read || msg.type === "cancel" || msg.type === "subscribe" ? 0 : this.#pacer.delay(RUNS_TURN.has(msg.type));
      if (delay > MAX_HOLD_MS)
        return this.#fail(id, pending, {
          code: "remote-rate-limit",
          message: `app.${msg.type}: the server takes no more requests for ${Math.ceil(delay / 1000)} s (its rate); nothing was sent`,
        });
      if (!this.#pacer.hold({ id, runs: RUNS_TURN.has(msg.type), read, send: () => this.#send(id, pending, msg) }))
        this.#fail(id, pending, {
          code: "remote-rate-limit",
          message: `app.${msg.type}: too many requests for the server's rate: ask again; nothing was sent`,
        });
    });
  }

  /** Sends a request whose turn came (pace.ts). */
  #send(id: string, pending: Pending, msg: DistributiveOmit<ClientMessageInput, "id">): void {
    let sent: boolean;
    try {
      sent = this.#link.send({ ...msg, id });
    } catch (e) {
      // a value JSON cannot say (a BigInt, a cycle) in what the caller gave: refused here, like any input the server would not take
      return this.#fail(id, pending, {
        code: "input-invalid",
        message: `this request cannot be sent: ${e instanceof Error ? e.message : String(e)}`.slice(0, 300),
      });
    }
    // (never sent: nothing to retry, and a lost answer it would have retried stays lost); a companion the server
    // refused for good (its key, its protocol version) says so, with that code
    const refusal = sent ? null : this.#link.refusal;
    if (refusal)
      this.#fail(id, pending, { code: refusal.wireCode, message: `the server refused this companion: ${refusal.message}; nothing was sent` });
    else if (!sent) {
      // reconnecting: why the last try failed is what a person can act on (a browser's socket tells only 1006 on a
      // refused upgrade, as on a server that is down: the message names both)
      const last = this.#link.lastFailure;
      this.#fail(id, pending, {
        code: "remote-closed",
        message: last ? `not connected (reconnecting; the last try: ${last.message.slice(0, 300)}); nothing was sent` : "not connected",
      });
    }
  }

  #stream(
    msg: DistributiveOmit<ClientMessageInput, "id">,
    conversation: string | null,
    controls: RemoteStream["controls"] = null,
    id = this.#id(),
    answer?: IdlessAnswer,
    /** Stops the request once sent (an owner call), until its reply. */
    stop?: () => void,
  ): RemoteStream {
    // held back for the server's limits (its maxRuns taken: held as long as those run), a request can still be taken back
    const takeBack = (): void => {
      const p = this.#pending.get(id);
      if (!p) return;
      if (this.#pacer.withdraw(id))
        this.#fail(id, p, { code: "turn-aborted", message: `app.${msg.type}: taken back before it was sent; nothing was sent` });
      else stop?.();
    };
    const stream = new RemoteStream(conversation, controls, takeBack);
    // a request about a turn names it: cut off before its first event, its error still says where it may go on
    if ("turn" in msg) stream.turn = msg.turn;
    this.#request(msg, id, stream, answer).then(
      (result) => {
        const outcome = outcomeSchema.safeParse(result);
        if (!outcome.success) return stream.fail({ code: "remote-protocol", message: "the server's reply was not an outcome" });
        // what the turn waits for now is what its companion shows next (the pushed list may come after this reply)
        this.#show(outcome.data.conversation, outcome.data.turn, outcome.data.state === "waiting" ? outcome.data.approvals : []);
        stream.finish(outcome.data);
      },
      (e: RemoteError) => stream.fail({ code: e.wireCode, message: e.message }),
    );
    return stream;
  }

  /**
   * Tells each listener. One that throws is reported and the others are still told: thrown into the socket's
   * message handler, it would end a Node process and stop the connection reading (every later reply lost), or,
   * from `close`, stop the reconnect.
   */
  #emit<K extends keyof Listeners>(type: K, ...args: Parameters<Listeners[K]>): void {
    for (const fn of this.#listeners[type]) {
      try {
        (fn as (...a: Parameters<Listeners[K]>) => void)(...args);
      } catch (e) {
        console.error(`[functai/websocket] a "${type}" listener threw:`, e);
      }
    }
  }

  #fail(id: string, p: Pending, error: WireError): void {
    this.#pending.delete(id);
    this.#pacer.done(id);
    p.reject(new RemoteError(error));
  }

  #onMessage(m: ServerMessage): void {
    switch (m.type) {
      case "waiting":
        this.last = m.waiting;
        this.#showList(m.waiting);
        this.#emit("waiting", m.waiting);
        return;
      case "event": {
        // (numbered in the order the server sent them: the last one got is where a subscribe after a drop goes on)
        if (m.n !== undefined && this.#cursor && m.n > this.#cursor.n) this.#cursor.n = m.n;
        // events are checked loosely (the engine's union may grow); the approval a stream reads of these is checked
        // here: one without it, read there, would throw into the socket's handler (a Node process ended, the
        // connection reading no more)
        if ((m.event.type === "approval" || m.event.type === "approved") && !approvalSchema.safeParse(m.event.approval).success) return;
        const event = m.event as unknown as TurnEvent;
        const p = m.id === null ? undefined : this.#pending.get(m.id);
        if (p?.answer && event.type === "approved") (p.answered ??= []).push(event.approval.id);
        if (m.id !== null) p?.stream?.push(event, m.conversation);
        // a conversation's turn this companion set going is sent to it once, with its request's id, not again as a
        // subscriber's: its listeners are shown it too, as every other companion's are
        if (m.conversation !== null) this.#emit("event", { conversation: m.conversation, event });
        return;
      }
      case "reply": {
        const p = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        this.#pacer.done(m.id);
        this.#settled(p?.answer);
        p?.resolve(m.result);
        return;
      }
      case "error": {
        const p = m.id === null ? undefined : this.#pending.get(m.id);
        this.#settled(p?.answer);
        if (p && m.id !== null) this.#fail(m.id, p, m);
        return;
      }
      case "programs":
        // the server's keys changed: what this key may call now
        this.programs = m.programs;
        return;
      case "welcome":
      case "heartbeat":
        return;
    }
  }
}

/**
 * A JavaScript caller's slip: a method's options left out or null (an
 * `approve()` with nothing to say which turn). Refused with a code, never a
 * TypeError on reading them; nothing is sent.
 */
function slip(method: string, options: unknown): WireError | null {
  if (typeof options === "object" && options !== null) return null;
  return {
    code: "input-invalid",
    message: `app.${method}: its options are an object ({ conversation, turn, … }), not ${describeValue(options, 60)}`,
  };
}

/**
 * Results JSON would send as something else (NaN or Infinity as `null`, a Map as `{}`): the turn would go on with a
 * result the person never gave. Refused, nothing sent, as `turn.resume` refuses a result JSON cannot keep.
 */
function unsaidResults(results: unknown): WireError | null {
  if (typeof results !== "object" || results === null) return null; // (the request's own check says what results are)
  let entries: [string, unknown][];
  try {
    entries = Object.entries(results);
  } catch (e) {
    return { code: "input-invalid", message: `app.resume: its results cannot be read (${describeError(e)}); nothing was sent`.slice(0, 2000) };
  }
  for (const [key, value] of entries) {
    const why = unsaidInJson(value);
    if (why !== undefined)
      return {
        code: "input-invalid",
        message: `app.resume: the result given for ${JSON.stringify(key.slice(0, 100))} cannot be sent as JSON (${why}); nothing was sent`.slice(
          0,
          2000,
        ),
      };
  }
  return null;
}

/**
 * Results as `turn.resume` keeps them: a result given as `undefined` (the tool returned nothing) is `null`. Sent as
 * it is, JSON drops its key, and the server refused the resume for a result never given (turn-unfinished).
 */
function keptResults<R>(results: R): R {
  if (typeof results !== "object" || results === null || Array.isArray(results)) return results;
  try {
    const entries = Object.entries(results);
    if (!entries.some(([, v]) => v === undefined)) return results;
    return Object.fromEntries(entries.map(([k, v]) => [k, v === undefined ? null : v])) as R;
  } catch {
    return results; // (a getter that throws now: the request's own check refuses it, with a code)
  }
}

/** A call's input JSON would send as something else: the program would run on what the caller never gave. */
function unsaidInput(input: unknown): WireError | null {
  const why = unsaidInJson(input);
  return why === undefined
    ? null
    : { code: "input-invalid", message: `app.call: the input cannot be sent as JSON (${why}); nothing was sent`.slice(0, 2000) };
}

/** The refusal of an id-less answer whose earlier one was lost held to nothing known (see `IdlessAnswer.unknown`). */
const lostUnseen = (method: "approve" | "deny", turn: string): WireError => ({
  code: "approval-unknown",
  message: `app.${method}: an earlier answer to turn ${turn} without an approval id was lost with the connection, and what it answered is not known (this companion never showed the turn's approvals): it may have been kept, and the turn may wait for something else now. Read the turn (app.status) and answer again, or answer by approval id; nothing was sent`,
});

/** A stream refused before anything was sent. */
function refused<T>(error: WireError): RemoteStream<T> {
  const stream = new RemoteStream<T>(null, null);
  stream.fail(error);
  return stream;
}

/** A reply's result, checked: a server that answers out of shape is refused, never believed. */
function checked<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new RemoteError({ code: "remote-protocol", message: "the server's reply was not understood" });
  return r.data;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** `{ [key]: value }` when the value is given (exactOptionalPropertyTypes: never write `undefined`). */
const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });

/**
 * Connects a companion to a functai server: Node (`ws`) or a browser (its
 * own WebSocket). The key goes in the first message (browsers cannot set
 * headers); use `wss://` beyond loopback.
 *
 * @example
 * const app = await connect("ws://127.0.0.1:8787", { key: "k1" });
 * for (const w of await app.waiting()) await app.approve({ conversation: w.conversation, turn: w.turn, by: "maria" });
 * app.on("waiting", (list) => console.log(list.length, "waiting"));
 * await app.close();
 */
export async function connect(url: string, options: ConnectOptions = {}): Promise<Companion> {
  const app = new Companion(url, options);
  await app.open();
  return app;
}

export { PROTOCOL_VERSION };
