/**
 * A companion's link to the server: opens the socket, says hello, checks
 * every incoming message, and reconnects with backoff when the connection
 * drops (not when the key was refused, nor after `close()`).
 */
import { describeValue, FunctaiError } from "../../../src/errors.js";
import { RemoteError } from "../shared/errors.js";
import { MAX_TIMER_MS } from "../../../src/runtime/clock.js";
import { optionChecks } from "../shared/options.js";
import { MAX_KEY_LENGTH, MAX_SHORT_LENGTH, PROTOCOL_VERSION, serverMessageSchema, type ServerMessage } from "../shared/protocol.js";
import type { ServerLimits } from "./pace.js";
import { OPEN, openSocket, socketConstructor, UpgradeRefused, type SocketConstructor, type SocketLike } from "./socket.js";

export interface LinkOptions {
  /** The server's key (required by any server not only on loopback). */
  key?: string;
  /** Reconnect when the connection drops (default true). */
  reconnect?: boolean;
  /** Longest wait between reconnect attempts (default 5000 ms). */
  maxDelayMs?: number;
  /** How long the server may take to welcome us (default 10000 ms). */
  timeoutMs?: number;
  /** A WebSocket constructor (default: the global one, else `ws`). */
  WebSocket?: SocketConstructor;
  /** A name for this companion (shown in the server's logs). */
  client?: string;
}

export interface LinkEvents {
  message(m: ServerMessage): void;
  welcome(programs: string[], again: boolean, limits: ServerLimits): void;
  down(e: { code: number; reason: string }): void;
}

const AUTH_CLOSE = 4401;
/** The server's close for a protocol it does not speak (a version it refuses, a hello it cannot read). */
const PROTOCOL_CLOSE = 4400;

/**
 * A hello refusal that will be said again at every attempt: the key (`remote-auth`) or the protocol (`remote-protocol`:
 * a version the server does not speak, a hello it cannot read). Retried, it would be retried for ever.
 */
const forGood = (e: unknown): e is RemoteError =>
  e instanceof RemoteError && (e.wireCode === "remote-auth" || e.wireCode === "remote-protocol");

export class Link {
  #socket: SocketLike | null = null;
  /** A socket open but not welcomed yet (a connect or reconnect saying hello): `close()` closes it too. */
  #opening: SocketLike | null = null;
  #closing = false;
  #retry: ReturnType<typeof setTimeout> | null = null;
  /** The largest message the connected server takes (bytes), when its welcome said. */
  #maxPayload: number | undefined;
  /** Reconnects since the last connection that stayed up (STABLE_MS): each waits longer. */
  #attempts = 0;
  /** A connection being opened (by `open()` or a reconnect): a second `open()` meanwhile waits for it. */
  #connecting: Promise<void> | null = null;
  /** Whether a connection was ever welcomed (a later one is a reconnect). */
  #welcomedOnce = false;
  /** Why the server refused this companion for good on a reconnect (its key, its protocol version): no retry follows. */
  #refusal: RemoteError | null = null;
  /** Why the last reconnect failed, while reconnecting: a request meanwhile says it (a browser's 1006 says no more). */
  #lastFailure: RemoteError | null = null;
  /** Reconnects in a row whose upgrade the server refused with a status each try would get again (UpgradeRefused.lasting). */
  #refusedUpgrades = 0;

  constructor(
    readonly url: string,
    readonly options: LinkOptions,
    readonly events: LinkEvents,
  ) {
    // (a URL from an environment variable that is not set: refused with a code, never a TypeError when it is opened)
    if (typeof url !== "string")
      throw new FunctaiError("settings-invalid", `connect: the server's URL is a string (ws:// or wss://), not ${describeValue(url, 100)}`);
    checkLinkOptions(options);
  }

  /**
   * Connects, unless connected or connecting: a second socket would be one `close()` never closes (it closes the
   * newest), holding the server's slot and the process. A reconnect waiting for its turn is made now. A closed link
   * stays closed.
   */
  open(): Promise<void> {
    if (this.#closing)
      return Promise.reject(
        new RemoteError({ code: "remote-closed", message: "this companion was closed (app.close()): connect() again for a new one" }),
      );
    if (this.#socket) return Promise.resolve();
    if (this.#connecting) return this.#connecting;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    this.#refusal = null; // asked again by the caller: tried again
    this.#refusedUpgrades = 0;
    return this.#attempt(this.#welcomedOnce);
  }

  #attempt(again: boolean): Promise<void> {
    const attempt = this.#connect(again).finally(() => {
      if (this.#connecting === attempt) this.#connecting = null;
    });
    this.#connecting = attempt;
    return attempt;
  }

  /** Why the last reconnect failed while the companion is reconnecting, or `null`. */
  get lastFailure(): RemoteError | null {
    return this.#socket ? null : this.#lastFailure;
  }

  /** Why the server refused this companion for good on a reconnect (`remote-auth`, `remote-protocol`), or `null`. */
  get refusal(): RemoteError | null {
    return this.#refusal;
  }

  /** Sends when connected; false when not. Throws when JSON cannot say `msg`, or it is larger than the server takes. */
  send(msg: object): boolean {
    if (!this.#socket || this.#socket.readyState !== OPEN) return false;
    const text = JSON.stringify(msg);
    // the server closes a connection on a message past its maxPayload (1009), failing every other request with it
    const max = this.#maxPayload;
    if (max !== undefined && text.length > max / 3) {
      const bytes = new TextEncoder().encode(text).length;
      if (bytes > max) throw new Error(`it is ${bytes} bytes, and the server takes at most ${max}`);
    }
    this.#socket.send(text);
    return true;
  }

  async close(): Promise<void> {
    this.#closing = true;
    if (this.#retry) clearTimeout(this.#retry);
    const socket = this.#socket ?? this.#opening;
    if (!socket || socket.readyState > OPEN) return;
    await new Promise<void>((resolve) => {
      let grace: ReturnType<typeof setTimeout> | undefined;
      socket.addEventListener("close", () => {
        clearTimeout(grace);
        resolve();
      });
      socket.close(1000, "bye");
      // a server gone silent (a network that dropped without a close) never answers the close, and `ws` would wait
      // 30 s for it: past the grace the socket is let go of, and its close (its requests in flight failed) awaited a
      // little more (a browser's socket cannot be let go of: its own close comes when it comes)
      grace = setTimeout(() => {
        forget(socket);
        grace = setTimeout(resolve, CLOSE_GRACE_MS);
      }, CLOSE_GRACE_MS);
    });
  }

  async #connect(again: boolean): Promise<void> {
    const Socket = await socketConstructor(this.options.WebSocket);
    // one deadline for the upgrade and the welcome: a server that answers neither is given up on (and retried)
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const begun = Date.now();
    const socket = await openSocket(Socket, this.url, timeoutMs, (s) => {
      this.#opening = s;
      if (this.#closing) s.close(); // (closed while the WebSocket class was loading)
    });
    if (this.#closing) return socket.close(1000, "bye");
    this.#opening = socket;
    await new Promise<void>((resolve, reject) => {
      let welcomed = false;
      let welcomedAt = 0;
      let gaveUp = false;
      /** Given up on after a silence (the watchdog): its messages and its close, whenever they come, are not heeded. */
      let lost = false;
      let watchdog: ReturnType<typeof setTimeout> | null = null;
      // a server that says it sends a heartbeat (and every message proves the connection carries them) and is then
      // silent for twice as long is unreachable: a network that drops without a close tells this end nothing, and the
      // calls in flight would wait for ever
      const heard = (heartbeatMs: number | undefined): void => {
        if (heartbeatMs === undefined) return;
        if (watchdog) clearTimeout(watchdog);
        const silence = 2 * heartbeatMs + 1000;
        watchdog = setTimeout(
          () => {
            lost = true;
            this.#down(socket, { code: 1006, reason: `no word from the server in ${silence} ms` }, welcomedAt);
            forget(socket);
          },
          Math.min(silence, MAX_TIMER_MS),
        );
      };
      let heartbeatMs: number | undefined;
      /** This end refused a message of the server's as too large (`ws`'s own maxPayload): it closes, saying nothing more. */
      let tooLarge = false;
      socket.addEventListener("error", (e?: unknown) => {
        if (refusedAsTooLarge(e)) tooLarge = true;
      });
      const timer = setTimeout(
        () => {
          gaveUp = true;
          reject(new RemoteError({ code: "remote-closed", message: "the server did not answer the hello" }));
          // (a server that answers no hello answers no close either: closed politely, `ws` would keep the socket 30 s)
          forget(socket);
        },
        Math.max(1, timeoutMs - (Date.now() - begun)),
      );
      socket.addEventListener("message", (e) => {
        if (lost) return;
        if (welcomed) heard(heartbeatMs);
        const m = parse(e.data) ?? (welcomed ? null : unreadWelcome(e.data));
        if (!m) return;
        if (!welcomed && m.type === "welcome") {
          // closed while saying hello, or given up on (a welcome that came late, before the close went out): this
          // socket is being closed, never adopted (adopted, its close would start a second reconnect, or one for a
          // connect() that already rejected)
          if (this.#closing || gaveUp) return;
          welcomed = true;
          this.#welcomedOnce = true;
          clearTimeout(timer);
          this.#opening = null;
          this.#socket = socket;
          this.#maxPayload = m.maxPayload;
          welcomedAt = Date.now();
          heartbeatMs = m.heartbeatMs;
          heard(heartbeatMs);
          resolve();
          this.events.welcome(m.programs, again, { ...(m.rate ? { rate: m.rate } : {}), ...(m.maxRuns ? { maxRuns: m.maxRuns } : {}) });
        } else if (!welcomed && m.type === "error" && m.id === "hello") {
          clearTimeout(timer);
          reject(new RemoteError(m));
          gaveUp = true;
          socket.close(1000, "hello refused"); // (a refusal the server does not close on, a malformed hello, would leave it open)
        } else if (welcomed) this.events.message(m);
      });
      socket.addEventListener("close", (e) => {
        clearTimeout(timer);
        if (watchdog) clearTimeout(watchdog);
        if (this.#opening === socket) this.#opening = null;
        // a 1009 with no reason is a message too large for this end or something between (a browser closes 1009 itself,
        // its error event saying no more, and the server answers with the same code; the server's own limit says why)
        const unsaid = !tooLarge && e.code === TOO_LARGE_CLOSE && !e.reason;
        // (said again at each attempt: its welcome, or what follows it, is as large again; a retry would loop for ever)
        if ((tooLarge || unsaid) && !welcomed)
          return reject(new RemoteError({ code: "remote-protocol", message: unsaid ? UNSAID_TOO_LARGE : TOO_LARGE }));
        if (!welcomed)
          return reject(
            new RemoteError({
              code: e.code === AUTH_CLOSE ? "remote-auth" : "remote-closed",
              // (with its reason: why the server would not have this connection, a hello past its maxPayload, it full)
              message: `the server closed the connection (${e.code}${e.reason ? `: ${e.reason.slice(0, 200)}` : ""})`,
            }),
          );
        if (lost) return;
        if (tooLarge || unsaid) this.#down(socket, { code: TOO_LARGE_CLOSE, reason: unsaid ? UNSAID_TOO_LARGE : TOO_LARGE }, welcomedAt, true);
        else this.#down(socket, { code: e.code, reason: e.reason }, welcomedAt);
      });
      socket.send(
        JSON.stringify({
          type: "hello",
          id: "hello",
          v: PROTOCOL_VERSION,
          ...(this.options.key === undefined ? {} : { key: this.options.key }),
          ...(this.options.client ? { client: this.options.client } : {}),
        }),
      );
    });
  }

  /**
   * A welcomed connection ended (closed, or silent too long): told, then reconnected unless closing or refused.
   * `tooLarge`: closed for a message too large (see TOO_LARGE), which a reconnect would be sent again.
   */
  #down(socket: SocketLike, e: { code: number; reason: string }, welcomedAt: number, tooLarge = false): void {
    if (this.#socket === socket) this.#socket = null;
    this.#lastFailure = null; // (a failure of an earlier outage's reconnects says nothing of this one)
    // the key revoked under a welcomed connection: no retry follows, and each later request says why (never "not
    // connected", as though a retry could help); open() asks again
    if (e.code === AUTH_CLOSE && !this.#closing)
      this.#refusal = new RemoteError({
        code: "remote-auth",
        message: `the server closed the connection (${AUTH_CLOSE}${e.reason ? `: ${e.reason}` : ""}): this companion's key was revoked`,
      });
    // a message of the server's this end cannot take: the server sends it again after a reconnect (the waiting list
    // first, the events it missed), and the companion would drop, reconnect and drop for ever, told a bare 1006
    if (tooLarge && !this.#closing) this.#refusal = new RemoteError({ code: "remote-protocol", message: `${e.reason} (${TOO_LARGE_CLOSE})` });
    this.events.down(e);
    if (tooLarge) return;
    // a connection that stayed up starts the backoff again; one dropped at once (a server that welcomes, then
    // closes) goes on waiting longer each time, not 100 ms after every welcome
    if (Date.now() - welcomedAt >= STABLE_MS) this.#attempts = 0;
    if (!this.#closing && this.options.reconnect !== false && e.code !== AUTH_CLOSE) this.#schedule();
  }

  #schedule(): void {
    const delay = reconnectDelay(this.#attempts++, this.options.maxDelayMs ?? 5000);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#closing) return;
      this.#attempt(true).then(
        () => {
          this.#refusedUpgrades = 0;
          this.#lastFailure = null;
        },
        (e: unknown) => this.#failed(e),
      );
    }, delay);
  }

  /** A reconnect failed: tried again later, unless the server refused this companion in a way each try would be told. */
  #failed(e: unknown): void {
    // an upgrade refused with a 4xx (a wrong path, an origin not let in) was retried for ever as a network drop; a
    // proxy mid-deploy may say one briefly, so it is given a few tries before it is taken as said for good
    const upgrade = e instanceof UpgradeRefused;
    this.#refusedUpgrades = upgrade && e.lasting ? this.#refusedUpgrades + 1 : 0;
    if (upgrade && e.lasting && this.#refusedUpgrades >= REFUSED_UPGRADES) {
      this.#refusal = e;
      return this.events.down({ code: e.wireCode === "remote-auth" ? AUTH_CLOSE : PROTOCOL_CLOSE, reason: e.message.slice(0, 200) });
    }
    // a refused key will not start working, nor a refused protocol version: stop trying, and say why (every later
    // request is refused with it, never "not connected" while retrying for ever)
    if (forGood(e) && !upgrade) {
      this.#refusal = e;
      if (e.wireCode === "remote-auth") return this.events.down({ code: AUTH_CLOSE, reason: "key refused" });
      return this.events.down({ code: PROTOCOL_CLOSE, reason: e.message.slice(0, 200) });
    }
    if (this.#closing) return;
    this.#lastFailure = e instanceof RemoteError ? e : new RemoteError({ code: "remote-closed", message: String(e).slice(0, 300) });
    this.#schedule();
  }
}

/** Upgrades refused in a row (a 4xx each) after which a companion stops reconnecting (see `Link.#failed`). */
const REFUSED_UPGRADES = 3;

/** The close of a message too large (a code WebSocket gives it), and why, as a companion that refused one tells it. */
const TOO_LARGE_CLOSE = 1009;
const TOO_LARGE =
  "the server sent a message larger than this companion takes (its WebSocket's maxPayload); it no longer reconnects: app.open() tries again";

/** A 1009 close with no reason: the companion cannot tell whose message it was, and stops as for its own refusal. */
const UNSAID_TOO_LARGE =
  "the connection was closed as a message too large (1009), saying no reason: a message larger than this companion's WebSocket (or something between) takes; it no longer reconnects: app.open() tries again";

/** Whether a socket's error is `ws` refusing a message past its own maxPayload (it then closes, 1006, saying no reason). */
function refusedAsTooLarge(e: unknown): boolean {
  const error = (e as { error?: { code?: unknown } } | null | undefined)?.error;
  return error?.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH";
}

/** Lets go of a socket given up on: `ws`'s at once (its close would wait 30 s for a peer that is gone), a browser's by closing it. */
function forget(socket: SocketLike): void {
  const terminate = (socket as { terminate?: unknown }).terminate;
  if (typeof terminate === "function") terminate.call(socket);
  else socket.close(1000, "no word from the server");
}

/** How long `close()` waits for the server to answer its close (and then for the socket let go of to say it closed). */
const CLOSE_GRACE_MS = 1000;

/** How long a connection must stay up for the next reconnect to start its backoff again. */
const STABLE_MS = 10_000;

/**
 * The wait before reconnect `attempt` (0 first): 100 ms doubling each time,
 * at most `maxMs`, of which a random half is taken off, so companions a
 * server restart dropped together do not all come back in the same
 * instant. `random` is Math.random (a test gives its own).
 */
export function reconnectDelay(attempt: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(maxMs, 100 * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + (base / 2) * random());
}

/**
 * The options, checked when the companion is made: a NaN or negative
 * maxDelayMs would reconnect every millisecond (a server that is down would
 * be hammered), a timeoutMs of 0 or less would give up on every hello. A key
 * or name the hello cannot carry (not text, past the protocol's bounds) was
 * sent, and refused by the server as a message it did not understand
 * (`remote-protocol`); a name of control characters, each written six bytes
 * long in JSON, made a hello past a small server's frame limit.
 */
function checkLinkOptions(options: LinkOptions): void {
  const { maxDelayMs, timeoutMs, reconnect, key, client } = options ?? {};
  const { wrong, ms } = optionChecks("connect");
  ms("maxDelayMs", maxDelayMs, 0);
  ms("timeoutMs", timeoutMs, 1);
  if (reconnect !== undefined && typeof reconnect !== "boolean") wrong("reconnect", reconnect, "true or false");
  // (a key is a secret: never in the message)
  if (key !== undefined && (typeof key !== "string" || key.length > MAX_KEY_LENGTH))
    throw new FunctaiError("settings-invalid", `connect: key must be text of at most ${MAX_KEY_LENGTH} characters, not ${typeof key === "string" ? `${key.length} characters` : typeof key}`);
  if (client !== undefined && (typeof client !== "string" || client.length > MAX_SHORT_LENGTH || CONTROL.test(client)))
    wrong("client", client, `a name of at most ${MAX_SHORT_LENGTH} characters, none a control character`);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: a name for logs holds none (C0, DEL, C1)
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The welcome to this hello when it cannot be read (a field of the wrong type: another protocol's, a broken server's),
 * as the hello's refusal (`remote-protocol`), which stops a companion for good. Dropped, it was waited on until the
 * deadline, told as a server that never answered (`remote-closed`), and tried again for ever.
 */
function unreadWelcome(data: unknown): ServerMessage | null {
  if (typeof data !== "string") return null;
  let raw: { type?: unknown; id?: unknown } | null;
  try {
    raw = JSON.parse(data) as { type?: unknown; id?: unknown } | null;
  } catch {
    return null;
  }
  if (raw?.type !== "welcome" || raw.id !== "hello") return null;
  return { type: "error", id: "hello", code: "remote-protocol", message: "the server's welcome was not understood" };
}

/**
 * A server message, checked; anything else is dropped, except a reply or an error out of shape that names a request
 * (its id): dropped, that request would wait for ever (nothing else answers it), so it is failed as not understood.
 */
function parse(data: unknown): ServerMessage | null {
  if (typeof data !== "string") return null;
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return null;
  }
  const checked = serverMessageSchema.safeParse(raw);
  if (checked.success) return checked.data;
  const { type, id } = (typeof raw === "object" && raw !== null ? raw : {}) as { type?: unknown; id?: unknown };
  if ((type === "reply" || type === "error") && typeof id === "string" && id.length > 0 && id.length <= 64)
    return { type: "error", id, code: "remote-protocol", message: `the server's ${type} was not understood` };
  return null;
}
