/**
 * One companion's connection, server side: the hello, the rate limit, the
 * checks, then each request handed to `handle` (requests.ts).
 */
import type { WebSocket } from "ws";
import type { Backlog } from "./backlog.js";
import type { TurnStream } from "../../../src/turn/stream.js";
import { wireError } from "../shared/errors.js";
import { allowsProgram, type Grant, type KeyRing } from "./keys.js";
import { TokenBucket, type RateOptions } from "./limits.js";
import {
  clientMessageSchema,
  PROTOCOL_VERSION,
  SUPPORTED_VERSIONS,
  type ClientMessage,
  type ServerMessage,
  type WaitingEntry,
  type WireError,
} from "../shared/protocol.js";
import type { RunContext } from "./runner.js";
import { visibleTo } from "./scope.js";
import type { WaitingWatcher } from "./watch.js";

/** What every connection of a server shares. */
export interface Hub extends RunContext {
  readonly keys: KeyRing;
  readonly watcher: WaitingWatcher;
  readonly connections: Set<Connection>;
  /** The events of conversations' turns sent lately, numbered: given again to a subscriber back after a drop. */
  readonly backlog: Backlog;
  readonly rate: Required<RateOptions>;
  /** Turns a connection may run at once. */
  readonly maxRuns: number;
  /** Bytes a connection may have waiting to be sent; past it the companion reads too slowly and is closed. */
  readonly maxBuffered: number;
  /** How often each connection is pinged and sent a `heartbeat`. */
  readonly heartbeatMs: number;
  /** The largest message a companion may send (bytes). */
  readonly maxPayload: number;
  /** Keeps a task the server must wait for on close. */
  track(task: Promise<unknown>): void;
  log(message: string, e?: unknown): void;
}

/**
 * Close codes: 4401 refused key (do not retry), 4429 abusive, 4400 protocol (no hello, or none in time), 1013 full
 * (try again later), 4408 reading too slowly (more than `maxBuffered` waiting to be sent).
 */
export const CLOSE = { auth: 4401, abuse: 4429, protocol: 4400, full: 1013, shutdown: 1001, slow: 4408 } as const;

/** How long a socket the server closed may go without reading anything before it is let go of. */
const CLOSE_GRACE_MS = 2000;

/**
 * Closes `socket` with `code`, and lets go of it once the peer has read
 * nothing of what waits for it for a short grace: `ws` waits 30 s for the
 * close's answer, and a peer gone silent (a laptop asleep, a network that
 * dropped) would hold the socket, its slot among the connections and its
 * address's, and what waits to be sent, all that time. A slow reader's
 * close waits behind what it has not read yet: while it reads on, it is
 * given the time to reach the close (and sees its code).
 */
export function closePolitely(socket: WebSocket, code: number, reason: string): void {
  socket.close(code, reason);
  letGoIfSilent(socket);
}

/** Lets go of a closing `socket` once its peer has read nothing of what waits for it for a grace (see closePolitely). */
function letGoIfSilent(socket: WebSocket): void {
  let left = socket.bufferedAmount;
  const judge = (): void => {
    const now = socket.bufferedAmount;
    if (now === 0 || now >= left) return socket.terminate();
    left = now;
    cut = setTimeout(judge, CLOSE_GRACE_MS);
    cut.unref?.();
  };
  let cut = setTimeout(judge, CLOSE_GRACE_MS);
  cut.unref?.();
  socket.once("close", () => clearTimeout(cut));
}

/**
 * Each waiting list as each key sees it, made JSON once (and its frame): a hundred companions of one key are sent the
 * same frame, and keep the same string to compare the next list with, not a hundred copies made a hundred times. A
 * key that sees everything shares with every other such key. Kept as long as the list is the server's current one.
 */
const waitingFrames = new WeakMap<readonly WaitingEntry[], Map<Grant | "all", { json: string; frame: string }>>();

function waitingFrame(grant: Grant, all: readonly WaitingEntry[]): { json: string; frame: string } {
  const scope = grant.conversations === null && grant.programs === null ? "all" : grant;
  let byScope = waitingFrames.get(all);
  if (!byScope) waitingFrames.set(all, (byScope = new Map()));
  let made = byScope.get(scope);
  if (!made) {
    const json = JSON.stringify(visibleTo(grant, all));
    // (the bytes JSON.stringify({ type: "waiting", waiting }) makes)
    made = { json, frame: `{"type":"waiting","waiting":${json}}` };
    byScope.set(scope, made);
  }
  return made;
}

/** What `reading` looks at of the TCP socket under a `ws` one (`_handle.writeQueueSize`: what libuv has not written yet). */
type TcpLike = { bytesWritten?: unknown; writableLength?: unknown; _handle?: { writeQueueSize?: unknown } | null };

export type Handler = (conn: Connection, msg: Exclude<ClientMessage, { type: "hello" }>) => Promise<void>;

export class Connection {
  grant: Grant | null = null;
  alive = true;
  subscribed = false;
  /** This connection's caller calls, by request id, with the program called: their approvals are answered here. */
  readonly calls = new Map<string, { stream: TurnStream<unknown>; program: string }>();
  /**
   * This connection's owner calls in flight, by request id, with what stops their turn once started (`halt`): their
   * caller may stop them (`cancel` with `owner: true`), also while they are still checked (`stop`: stopped as they start).
   */
  readonly owned = new Map<string, { halt: (() => void) | null; stop: boolean }>();
  readonly inflight = new Set<string>();
  /** Requests of this connection that run a turn now (at most `maxRuns`). */
  running = 0;
  #strikes = 0;
  /** What the last look at the outgoing TCP stream saw (see `reading`). */
  #out = { handed: 0, queued: 0, backlog: false };
  #lastWaiting = "";
  #lastPrograms = "";
  readonly #bucket: TokenBucket;
  readonly #helloTimer: ReturnType<typeof setTimeout>;

  constructor(
    readonly hub: Hub,
    readonly socket: WebSocket,
    readonly handle: Handler,
    helloTimeoutMs: number,
    /** The remote address (per-address limits). */
    readonly address: string,
  ) {
    this.#bucket = new TokenBucket(hub.rate.perSecond, hub.rate.burst);
    // judged once the socket's queued input was read (setImmediate runs after the event loop's I/O phase): a deadline
    // that came due while the server's own event loop stalled fires before it reads a hello sent in time
    this.#helloTimer = setTimeout(() => setImmediate(() => this.grant || this.close(CLOSE.protocol, "no hello in time")), helloTimeoutMs);
    socket.on("message", (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on("pong", () => (this.alive = true));
    socket.on("close", () => this.#closed());
    // a broken socket closes, and the close handler cleans up; one `ws` closes itself for a frame it refused (past
    // maxPayload: 1009) waits for the peer's answer as the server's own closes do, a short grace, never ws's 30 s
    socket.on("error", () => letGoIfSilent(socket));
  }

  send(msg: ServerMessage): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(msg);
    } catch (e) {
      this.hub.log("a message could not be sent", e);
      // a reply is what the companion's call waits for: one JSON cannot say (a BigInt, a cycle in a turn's value) is refused by its id, never dropped
      if (msg.type === "reply") this.error(msg.id, wireError("output-invalid", "the result cannot be sent: JSON cannot say it (a BigInt, a cycle?)"));
      return;
    }
    this.sendText(text);
  }

  /** Sends a message already made JSON (one frame shared by the connections it goes to: made once, not once each). */
  sendText(text: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    // a companion that reads slower than the server writes would make the server hold every message it was sent, without
    // end: past the cap it is closed (it reconnects and gets the waiting list as it is then)
    if (this.socket.bufferedAmount > this.hub.maxBuffered) {
      this.hub.log("a companion reads too slowly: closed", new Error(`${this.socket.bufferedAmount} bytes waiting to be sent`));
      return this.close(CLOSE.slow, "reading too slowly");
    }
    try {
      this.socket.send(text);
    } catch (e) {
      this.hub.log("a message could not be sent", e);
    }
  }

  /**
   * Whether the companion read since the last look, as the socket shows it: bytes waited here to be sent (the
   * kernel's buffer was full) and some went out since, which TCP does only as the peer acknowledges them. A ping
   * is queued behind what waits here: a companion on a slow link, reading a long backlog (a large waiting list),
   * answers it late, yet it lives. (Without a backlog, bytes handed to the kernel prove nothing: a dead peer's
   * buffer takes a heartbeat's few bytes too.)
   */
  reading(): boolean {
    const raw = (this.socket as unknown as { _socket?: TcpLike })._socket;
    if (!raw || typeof raw.bytesWritten !== "number" || typeof raw.writableLength !== "number") return false;
    // bytes whose write finished (the kernel took them), and what libuv still holds of the write in progress (Node
    // hands every queued chunk to one write: it drains within it, unseen by the first number)
    const handed = raw.bytesWritten - raw.writableLength;
    const queued = typeof raw._handle?.writeQueueSize === "number" ? raw._handle.writeQueueSize : 0;
    const last = this.#out;
    const read = last.backlog && (handed > last.handed || (handed === last.handed && queued < last.queued));
    this.#out = { handed, queued, backlog: raw.writableLength > 0 };
    return read;
  }

  error(id: string | null, error: WireError): void {
    this.send({ type: "error", id, ...error });
  }

  close(code: number, reason: string): void {
    clearTimeout(this.#helloTimer);
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) closePolitely(this.socket, code, reason);
  }

  /** A refused message: answered, counted; too many and the connection is closed as abusive. */
  strike(id: string | null, error: WireError): void {
    this.#strikes += 1;
    if (this.#strikes > this.hub.rate.strikes) return this.close(CLOSE.abuse, "too many refused messages");
    this.error(id, error);
  }

  /** Sends the programs this connection's key may call when they changed (or always, in the welcome). */
  programs(id?: string): void {
    const grant = this.grant && this.hub.keys.current(this.grant);
    if (!grant) return;
    const programs = [...this.hub.programs.keys()].filter((p) => allowsProgram(grant, p));
    const json = JSON.stringify(programs);
    if (id === undefined && json === this.#lastPrograms) return;
    this.#lastPrograms = json;
    if (id === undefined) return this.send({ type: "programs", programs });
    const { perSecond, burst } = this.hub.rate;
    this.send({
      type: "welcome",
      id,
      v: PROTOCOL_VERSION,
      programs,
      heartbeatMs: this.hub.heartbeatMs,
      maxPayload: this.hub.maxPayload,
      // what this connection may send: a companion keeps within it rather than be refused (each refusal a strike)
      rate: { perSecond, burst },
      maxRuns: this.hub.maxRuns,
    });
  }

  /** Sends this connection's view of the waiting list when it changed (or always, after the hello). */
  pushWaiting(all: readonly WaitingEntry[], force = false): void {
    const grant = this.grant && this.hub.keys.current(this.grant);
    if (!grant) return;
    const { json, frame } = waitingFrame(grant, all);
    if (!force && json === this.#lastWaiting) return;
    this.#lastWaiting = json; // (the one string its key's connections share, never a copy of it each)
    this.sendText(frame);
  }

  #onMessage(data: unknown, isBinary: boolean): void {
    // a closing connection (refused, abusive, revoked) reads no more: what a flood left in its buffer costs nothing
    if (this.socket.readyState !== this.socket.OPEN) return;
    const limited = !this.#bucket.take();
    const slow = wireError("remote-rate-limit", "too many messages: slow down");
    if (isBinary) return this.strike(null, limited ? slow : wireError("remote-protocol", "text frames only"));
    let raw: unknown;
    try {
      raw = JSON.parse(String(data));
    } catch {
      return this.strike(null, limited ? slow : wireError("remote-protocol", "not JSON"));
    }
    const rawId = typeof raw === "object" && raw !== null ? (raw as { id?: unknown }).id : undefined;
    // (not by the id of a request still running: its companion would take the refusal as that request's answer)
    const id = typeof rawId === "string" && rawId.length > 0 && rawId.length <= 64 && !this.inflight.has(rawId) ? rawId : null;
    // refused by its id, so the companion's call settles; each refusal is a strike, so a flood is parsed only until it is closed
    if (limited) return this.strike(id, slow);
    const parsed = clientMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const refused = wireError(
        "remote-protocol",
        `message not understood${issue ? ` at ${issue.path.join(".") || "top"}: ${issue.message}` : ""}`.slice(0, 300),
      );
      // a hello it cannot read ends the connection, as a first request that is no hello does: the companion is told
      // (its link stops on 4400), never left to wait out the hello deadline after it said one. (`raw` may be JSON's
      // null: read as an object, it threw here, uncaught, and a frame of `null` before any hello ended the process)
      if (!this.grant && (raw as { type?: unknown } | null)?.type === "hello") {
        this.error(id, refused);
        return this.close(CLOSE.protocol, "no hello understood");
      }
      return this.strike(id, refused);
    }
    const msg = parsed.data;
    if (msg.type === "hello") return this.#hello(msg, id);
    if (!this.grant) {
      this.error(msg.id, wireError("remote-protocol", "say hello first"));
      return this.close(CLOSE.protocol, "no hello");
    }
    const grant = this.hub.keys.current(this.grant);
    if (!grant) {
      this.error(msg.id, wireError("remote-auth", "this key was revoked"));
      return this.close(CLOSE.auth, "key revoked");
    }
    this.grant = grant; // the key's limits as they are now (setKeys may have changed them)
    // refused without its id: an error carrying it would settle the running request's call on the companion (as
    // failed) while that request goes on and gets its own reply (an approval given, told as refused)
    if (this.inflight.has(msg.id)) return this.strike(null, wireError("remote-protocol", `request id ${msg.id} is in use`));
    this.inflight.add(msg.id);
    const done = this.handle(this, msg)
      .catch((e: unknown) => this.hub.log("a request failed", e))
      .finally(() => this.inflight.delete(msg.id));
    this.hub.track(done);
  }

  /** `id`: the id its refusal may carry (`null` when a request of this connection runs under it: not that one's answer). */
  #hello(msg: Extract<ClientMessage, { type: "hello" }>, id: string | null): void {
    if (this.grant) return this.strike(id, wireError("remote-protocol", "hello was already said"));
    if (!SUPPORTED_VERSIONS.includes(msg.v)) {
      this.error(
        msg.id,
        wireError("remote-protocol", `protocol version ${msg.v} is not supported (this server speaks ${SUPPORTED_VERSIONS.join(", ")})`),
      );
      return this.close(CLOSE.protocol, "version");
    }
    const grant = this.hub.keys.match(msg.key);
    if (!grant) {
      this.error(msg.id, wireError("remote-auth", msg.key === undefined ? "a key is required" : "wrong key"));
      return this.close(CLOSE.auth, "key");
    }
    clearTimeout(this.#helloTimer);
    this.grant = grant;
    this.programs(msg.id);
    // a reconnecting companion gets the current list again
    this.pushWaiting(this.hub.watcher.all, true);
  }

  #closed(): void {
    clearTimeout(this.#helloTimer);
    this.hub.connections.delete(this);
    // nobody is left to answer a caller call's approvals: stop it
    for (const { stream } of this.calls.values()) stream.abort();
    this.calls.clear();
  }
}
