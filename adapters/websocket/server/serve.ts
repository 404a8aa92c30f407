import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { systemClock } from "../../../src/runtime/clock.js";
import { resolveStore } from "../../../src/runtime/stores.js";
import { describeValue, FunctaiError } from "../../../src/errors.js";
import { checkSettings, type Settings } from "../../../src/settings.js";
import type { Store } from "../../../src/store/types.js";
import { Backlog, BACKLOG_LIMITS } from "./backlog.js";
import { CLOSE, closePolitely, Connection, type Hub } from "./connection.js";
import { optionChecks } from "../shared/options.js";
import { isLoopback, KeyRing, type KeySpec } from "./keys.js";
import { PROTOCOL_VERSION } from "../shared/protocol.js";
import { admit, type RateOptions } from "./limits.js";
import { ProgramNames } from "./names.js";
import { requestHandler } from "./requests.js";
import { Runs, type AnyProgram } from "./runner.js";
import { WaitingWatcher } from "./watch.js";

/**
 * What `serve` takes: the store, the programs it runs, the keys companions
 * must show, and where to listen (or an HTTP server to attach to).
 *
 * @example
 * const options: ServeOptions = { store: "desk-chats/", programs: [desk], keys: [process.env.FUNCTAI_KEY!], port: 8787, host: "0.0.0.0" };
 * const server = await serve(options);
 */
export interface ServeOptions {
  /** The conversations to expose: a Store, or a folder. */
  store: Store | string;
  /** The programs the server runs turns of (and that companions may `call`), by their names. */
  programs: readonly AnyProgram[] | Readonly<Record<string, AnyProgram>>;
  /** Required unless the server only listens on loopback (or a unix socket). A key may be limited: `{ key, conversations, programs }`. */
  keys?: readonly KeySpec[];
  /** Default 0 (any free port). */
  port?: number;
  /** Default `127.0.0.1`. Anything else needs keys. */
  host?: string;
  /** Attach to this HTTP server, listening already, instead of listening (keys are required unless it listens on loopback or a unix socket). */
  server?: HttpServer;
  /** Serve only upgrades to this path, as a client sends it (`"/functai"`: `/` first, no space, `?` nor `#`). */
  path?: string;
  /** Settings of the conversations the server opens and of its calls (default `{ approve: "changes" }`). */
  settings?: Settings;
  /** Largest frame in bytes (default 64 KiB); larger closes the connection (1009, its reason naming the limit). */
  maxPayload?: number;
  /** Bytes a connection may have waiting to be sent (default 8 MiB); a companion that reads slower is closed (4408) and reconnects. */
  maxBuffered?: number;
  rate?: RateOptions;
  /** Requests that run a turn (approve, deny, resume, abandon, call) one connection may have at once (default 8); a companion waits for room (the welcome says it). */
  maxRuns?: number;
  /** How often the store is looked at for waiting turns (default 200 ms). */
  pollMs?: number;
  /** A turn answered but not run on for this long (its answerer died) is listed for a resume (default 30 s). */
  answeredGraceMs?: number;
  /** Ping (and send a `heartbeat`) every this often; a connection that did not answer the last ping is dropped (default 15 s). */
  heartbeatMs?: number;
  /** A connection that says no hello within this is closed, 4400 (default 5 s). */
  helloTimeoutMs?: number;
  /** Connections at once (default 256); more are closed with 1013 (try again later). */
  maxConnections?: number;
  /**
   * Sockets that have not said hello yet (default 32). They never take an
   * authenticated companion's room: past this (or any other limit), the
   * oldest of them is closed to make room for a newcomer.
   */
  maxPending?: number;
  /** Connections from one remote address (default 32); past it the oldest of its sockets without a hello is closed, else the newcomer (1013). */
  maxPerAddress?: number;
  /** Browser pages (by `Origin`, each as a browser sends it: `"http://localhost:5173"`) allowed to connect to a server without keys. */
  origins?: readonly string[];
  /** Where server-side failures are told (default: console.error, without the request's data); one that throws is reported there, and the server goes on. */
  onError?: (message: string, error: unknown) => void;
}

/**
 * A running server: where it listens, its open connections, its keys, and `close()`.
 *
 * @example
 * const server: WebSocketServerHandle = await serve({ store: "desk-chats/", programs: [desk] });
 * console.log(`companions connect to ${server.url}`);
 * server.setKeys(["new-key"]); // connections with the old key are closed
 * await server.close();
 */
export interface WebSocketServerHandle {
  /** Where companions connect: `ws://host:port/path`; on an HTTP server listening on a pipe, `ws+unix:<socket path>:<path>`. */
  readonly url: string;
  /** The port (0 on a pipe). */
  readonly port: number;
  /** The address listened on (on a pipe, its path). */
  readonly host: string;
  /** Open connections. */
  readonly connections: number;
  /** Replaces the keys; connections whose key is gone are closed, the others are sent what they may now call and see. */
  setKeys(keys: readonly KeySpec[]): void;
  /**
   * Stops listening, closes connections, waits (bounded, 5 s) for turns it
   * runs, then lets go of those still running, as a process exit would but
   * at once: their tools' `ctx.signal` aborts, they go no further here, and
   * a conversation's turn reads `interrupted` (its lease given up), so any
   * other server resumes it (a tool that had started and not finished is
   * `unfinished`, for a person). A caller's call is stopped.
   */
  close(): Promise<void>;
}

/** How long `close()` lets the turns it runs go on before it lets go of them. */
const TURNS_GRACE_MS = 5000;
/** How long `close()` waits, once it let go of them, for the stores to take that (and the turns' tools to see their signal). */
const LET_GO_GRACE_MS = 1000;

/** Whether `tasks` all settled within `ms`. */
async function settled(tasks: readonly Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([Promise.allSettled(tasks).then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long `close()` lets companions answer its close before it cuts their sockets. */
const CLOSE_GRACE_MS = 1000;

/** Listens; rejects on the server's error (a port in use, one out of range, a host it cannot bind), then stops hearing it. */
function listen(http: HttpServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (e: unknown): void => reject(e);
    http.once("error", failed);
    try {
      http.listen(port, host, () => {
        http.off("error", failed);
        resolve();
      });
    } catch (e) {
      http.off("error", failed);
      reject(e);
    }
  });
}

/**
 * Hands the upgrades meant for `wss` (its path, or any without one) to it. A
 * server attached to may have other WebSocket endpoints: an upgrade for
 * another path is theirs, left alone (`ws` in server mode would refuse it,
 * 400, breaking them); with no other listener it is refused here.
 */
function upgradeHandler(wss: WebSocketServer, http: HttpServer) {
  const upgrades = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (wss.shouldHandle(req)) return wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    if (http.listeners("upgrade").some((l) => l !== upgrades)) return;
    socket.on("error", () => undefined); // (a peer gone already: nothing to tell it)
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  };
  return upgrades;
}

/**
 * The programs by name. Two programs of one name would leave one unserved
 * (its waiting turns could never run on), so they are refused.
 */
function programMap(programs: ServeOptions["programs"]): Map<string, AnyProgram> {
  if (typeof programs !== "object" || programs === null)
    throw new FunctaiError(
      "settings-invalid",
      `serve: programs is a list of AI functions or programs (or a record of them by name), not ${describeValue(programs, 100)}`,
    );
  const entries: [string, AnyProgram][] = Array.isArray(programs) ? programs.map((p: AnyProgram) => [p?.name, p]) : Object.entries(programs);
  const map = new Map<string, AnyProgram>();
  for (const [name, fn] of entries) {
    if (typeof fn !== "function" || typeof name !== "string")
      throw new FunctaiError("settings-invalid", `serve: ${describeValue(name, 100)} is not an AI function or program`);
    if (map.has(name))
      throw new FunctaiError("settings-invalid", `serve: two programs are named ${JSON.stringify(name)}; a companion could reach only one`);
    map.set(name, fn);
  }
  return map;
}

/**
 * The numbers of the options, checked before anything starts: a timer of 0,
 * a negative one or NaN fires every millisecond (a heartbeat of 0 drops each
 * connection before its hello; a poll of 0 reads the store without pause),
 * and a limit that is NaN or 0 compares false or true for every connection
 * (a rate of NaN turns the rate limit off; maxPending 0 refuses everyone).
 */
function checkOptions(options: ServeOptions): void {
  const { wrong, whole, ms } = optionChecks("serve");
  for (const name of ["maxPayload", "maxBuffered", "maxRuns", "maxConnections", "maxPending", "maxPerAddress"] as const)
    whole(name, options[name], 1);
  for (const name of ["pollMs", "heartbeatMs", "helloTimeoutMs"] as const) ms(name, options[name], 1);
  ms("answeredGraceMs", options.answeredGraceMs, 0);
  // (NaN, a fraction or a text failed only inside listen, after the store was looked at)
  const { port } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535))
    wrong("port", port, "a whole number from 0 (any free port) to 65535");
  const rate: unknown = options.rate;
  if (rate !== undefined) {
    if (typeof rate !== "object" || rate === null) wrong("rate", rate, "{ perSecond?, burst?, strikes? }");
    const { perSecond, burst, strikes } = rate as RateOptions;
    if (perSecond !== undefined && !(typeof perSecond === "number" && perSecond > 0 && perSecond < Number.POSITIVE_INFINITY))
      wrong("rate.perSecond", perSecond, "a number > 0");
    whole("rate.burst", burst, 1);
    whole("rate.strikes", strikes, 0);
  }
  if (options.settings !== undefined) checkSettings(options.settings);
  checkOrigins(options.origins, wrong);
  if (options.path !== undefined && options.path !== "" && !isRequestPath(options.path))
    wrong("path", options.path, 'a path as a client sends it: "/" first, nothing a URL would encode (a space), no "?" nor "#" (e.g. "/functai")');
}

/**
 * The largest hello a companion of this package sends with one of `keys`: the longest key (as JSON says it), and a
 * client name at the protocol's 200 characters of up to 3 bytes each in UTF-8 (`ws` counts a frame's bytes).
 */
function largestHello(keys: readonly KeySpec[]): number {
  let longest: string | undefined;
  const bytes = (text: string): number => Buffer.byteLength(JSON.stringify(text));
  for (const spec of keys) {
    const key: unknown = typeof spec === "string" ? spec : (spec as { key?: unknown } | null)?.key;
    if (typeof key === "string" && (longest === undefined || bytes(key) > bytes(longest))) longest = key;
  }
  const hello = { type: "hello", id: "hello", v: PROTOCOL_VERSION, ...(longest === undefined ? {} : { key: longest }), client: "€".repeat(200) };
  return Buffer.byteLength(JSON.stringify(hello));
}

/**
 * A `maxPayload` below the hello its own companions send locks every one of them out: each hello is closed (1009)
 * before its welcome, at every reconnect. Refused when the server starts (or when `setKeys` gives a longer key).
 */
function checkHelloFits(maxPayload: number, keys: readonly KeySpec[], where: "maxPayload" | "setKeys"): void {
  const min = largestHello(keys);
  if (maxPayload >= min) return;
  throw new FunctaiError(
    "settings-invalid",
    where === "maxPayload"
      ? `serve: maxPayload ${maxPayload} is below the largest hello a companion sends (${min} bytes: its key, and a client name); every companion would be closed (1009) before its welcome: give at least ${min}`
      : `serve: setKeys: a key this long makes a companion's hello ${min} bytes, past this server's maxPayload (${maxPayload}): every companion with it would be closed (1009) before its welcome; nothing changed`,
  );
}

/**
 * Whether `path` is one a client's request can carry as it is: `ws` compares the request's path with it, letter for
 * letter, and a client sends what its URL made of it (a space as `%20`, no `?…` nor `#…`; a path not starting with `/`
 * made `ws://host:port` + it no URL at all): any other path refused every connection, 400, nothing said.
 */
function isRequestPath(path: unknown): boolean {
  if (typeof path !== "string" || !path.startsWith("/")) return false;
  try {
    const url = new URL(path, "ws://localhost");
    return url.pathname === path && url.search === "" && url.hash === "";
  } catch {
    return false;
  }
}

/**
 * Whether `ws` reads a unix socket's path back from its `ws+unix:` url: it cuts the url's path (and query) at the first
 * `:` (the served path follows) and decodes nothing, while the URL encodes a space (and `"`, `<`, `>`, `{`, `}`, …),
 * takes `#` for a fragment (which `ws` refuses) and `//` for a host. Such a path's url reached another socket, or none.
 */
function pipeUrlReads(socketPath: string): boolean {
  if (socketPath.includes(":")) return false;
  try {
    const url = new URL(`ws+unix:${socketPath}`);
    return url.hash === "" && url.pathname + url.search === socketPath;
  } catch {
    return false;
  }
}

/**
 * Whether a server at `address` is reached only from this machine: on loopback, or on a unix socket (a file: its
 * permissions say who may connect, as any local user may reach loopback). A Windows named pipe is not: others reach
 * it over the network (SMB), and it needs keys as a host beyond loopback does.
 */
function onlyLocal(address: AddressInfo | string | null | undefined): boolean {
  if (typeof address === "string") return process.platform !== "win32";
  return address !== null && address !== undefined && isLoopback(address.address);
}

/**
 * The socket class of a server's connections: a close `ws` makes itself, for a frame it refused (past `maxPayload`,
 * text that is not UTF-8, a frame the protocol does not allow), says why; `ws` gives it no reason, and a companion read only a code.
 */
function servedSocket(maxPayload: number): typeof WebSocket {
  const reasons: Readonly<Record<number, string>> = {
    1002: "a frame the WebSocket protocol does not allow (unmasked, an unknown opcode, …)",
    1007: "a text frame that is not UTF-8",
    1009: `a message over ${maxPayload} bytes (the server's maxPayload)`,
  };
  return class ServedSocket extends WebSocket {
    override close(code?: number, data?: string | Buffer): void {
      super.close(code, data ?? (code === undefined ? undefined : reasons[code]));
    }
  };
}

/** Whether `o` is an origin as a browser sends it (`scheme://host[:port]`): one with a path, or a trailing slash, never matches. */
function isOrigin(o: unknown): boolean {
  if (typeof o !== "string") return false;
  try {
    return new URL(o).origin === o;
  } catch {
    return false;
  }
}

/**
 * The pages let in without keys: a lone string was taken letter by letter, and an origin no browser sends never
 * matched; either way every page was refused, nothing said.
 */
function checkOrigins(origins: unknown, wrong: (name: string, value: unknown, what: string) => never): void {
  if (origins === undefined) return;
  if (!Array.isArray(origins)) wrong("origins", origins, 'a list of origins, e.g. ["http://localhost:5173"]');
  for (const o of origins as unknown[])
    if (!isOrigin(o))
      wrong("origins", o, 'an origin as a browser sends it: scheme://host[:port], no path nor trailing slash, e.g. "http://localhost:5173"');
}

/**
 * The server's log, told from inside its handlers: an `onError` that throws (a logger that is down) is reported and
 * the server goes on, as a companion's listener that throws is. Thrown on, it left a request unanswered (the log is
 * told before the refusal is sent), a first scan unfinished (`serve` never resolved), and a rejection nobody handles.
 */
function guardedLog(onError: (message: string, e: unknown) => void): (message: string, e?: unknown) => void {
  return (message, e) => {
    try {
      onError(message, e);
    } catch (thrown) {
      console.error(`[functai/websocket] onError threw, told "${message}":`, thrown);
    }
  };
}

/** Pings a connection; its pong (connection.ts) says it lives. */
function ping(conn: Connection): void {
  conn.alive = false;
  conn.socket.ping();
  // (a browser cannot see pings: this is what tells a companion the connection still carries messages)
  if (conn.grant) conn.send({ type: "heartbeat" });
}

/**
 * One heartbeat: a connection that answered the last ping is pinged again;
 * one that did not is judged only once the sockets' queued input was read
 * (setImmediate runs after the event loop's I/O phase). A tick runs before
 * that I/O: when the server's own event loop stalled past a heartbeat (a
 * synchronous loop, a long GC), a pong that came meanwhile would still be
 * unread, and a live companion dropped for the server's own slowness. One
 * whose backlog of outgoing data drains is reading (its pong is queued
 * behind that data): it is not dropped for the late pong.
 */
function beat(connections: Iterable<Connection>): void {
  const missed: Connection[] = [];
  for (const conn of connections) {
    // (looked at each beat: what it saw is what the next look compares with)
    const reading = conn.reading();
    if (conn.alive) ping(conn);
    // its pong waits behind a backlog it is reading (a slow link): alive, and its ping is still on its way
    else if (reading) continue;
    else missed.push(conn);
  }
  if (missed.length === 0) return;
  setImmediate(() => {
    for (const conn of missed) {
      if (conn.alive) ping(conn);
      else conn.socket.terminate(); // missed the last ping, with all that came read: dead
    }
  });
}

/**
 * Where companions connect: `ws://host:port/path`, or, for an HTTP server listening on a pipe (a unix socket path:
 * no host nor port), the `ws+unix:` form `ws` connects to (`ws+unix:<socket>:<path>`), its port 0.
 */
function whereServed(address: AddressInfo | string, path: string | undefined): { url: string; host: string; port: number } {
  if (typeof address === "string") return { url: `ws+unix:${address}${path ? `:${path}` : ""}`, host: address, port: 0 };
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `ws://${shownHost}:${address.port}${path ?? ""}`, host: address.address, port: address.port };
}

/**
 * Serves a store's waiting turns and some programs to companions over
 * WebSocket. Listening beyond loopback without keys is refused.
 *
 * @example
 * const server = await serve({ store: "desk-chats/", programs: [desk], keys: ["k1"], port: 0 });
 * const app = await connect(server.url, { key: "k1" });
 * await server.close();
 */
export async function serve(options: ServeOptions): Promise<WebSocketServerHandle> {
  checkOptions(options);
  const host = options.host ?? "127.0.0.1";
  const keys = new KeyRing(options.keys);
  const maxPayload = options.maxPayload ?? 64 * 1024;
  checkHelloFits(maxPayload, options.keys ?? [], "maxPayload");
  const attached = options.server;
  const attachedAt = attached?.address();
  const loopback = attached ? onlyLocal(attachedAt) : isLoopback(host);
  if (!keys.required && !loopback)
    throw new FunctaiError(
      "remote-auth",
      `serve: listening on ${attached ? "a server not on loopback nor a unix socket" : host} without keys would let anyone answer approvals; give keys`,
    );
  if (typeof attachedAt === "string" && !pipeUrlReads(attachedAt))
    throw new FunctaiError(
      "settings-invalid",
      `serve: the HTTP server listens on ${JSON.stringify(attachedAt.slice(0, 200))}, which a ws+unix: url cannot name (ws cuts it at ":", and a space, "#", "//" and the like are read as something else): listen on a socket path without them`,
    );
  // (its address is where companions connect: read once it listens, else this failed later as a TypeError, with the
  // store polled and the upgrade listener left on the server for a handle nobody got)
  if (attached && attachedAt === null)
    throw new FunctaiError("settings-invalid", "serve: the HTTP server given as `server` does not listen yet: call its listen() first, then serve");
  const store = resolveStore(options.store);
  const clock = systemClock; // (one clock for the whole server: its conversations, the waiting list, the events it sends)
  const log = guardedLog(
    options.onError ?? ((message: string, e: unknown) => console.error(`[functai/websocket] ${message}:`, e instanceof Error ? e.message : e)),
  );
  const tasks = new Set<Promise<unknown>>();
  const programs = programMap(options.programs);
  const names = new ProgramNames(programs);
  const watcher = new WaitingWatcher(
    store,
    options.pollMs ?? 200,
    (e) => log("the waiting list could not be read", e),
    options.answeredGraceMs,
    clock,
    (p) => names.shown(p),
  );
  const maxBuffered = options.maxBuffered ?? 8 * 1024 * 1024;
  const hub: Hub = {
    store,
    clock,
    programs,
    names,
    settings: { approve: "changes", ...options.settings },
    runs: new Runs(),
    keys,
    watcher,
    connections: new Set(),
    // (what is given again at once stays well under what a connection may have waiting: more would close it as slow)
    backlog: new Backlog({ events: BACKLOG_LIMITS.events, bytes: Math.min(BACKLOG_LIMITS.bytes, Math.floor(maxBuffered / 2)) }),
    maxRuns: options.maxRuns ?? 8,
    maxBuffered,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxPayload,
    // (each by itself: a key given as undefined takes the default, where a spread would write undefined over it)
    rate: { perSecond: options.rate?.perSecond ?? 50, burst: options.rate?.burst ?? 100, strikes: options.rate?.strikes ?? 20 },
    track: (task) => {
      tasks.add(task);
      void task.finally(() => tasks.delete(task));
    },
    log,
  };
  watcher.onChange((all) => hub.connections.forEach((c) => c.pushWaiting(all)));
  await watcher.start();

  const http = attached ?? createServer((_req, res) => res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket only\n"));
  if (!attached) {
    try {
      await listen(http, options.port ?? 0, host);
    } catch (e) {
      void watcher.stop(); // a server that never listened leaves nothing polling the store
      throw new FunctaiError(
        "settings-invalid",
        `serve: cannot listen on ${host}:${options.port ?? 0}: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
  }
  // (made once it listens, in the same tick: no upgrade can come in between)
  const origins = new Set(options.origins ?? []);
  const wss = new WebSocketServer({
    noServer: true,
    WebSocket: servedSocket(hub.maxPayload),
    maxPayload: hub.maxPayload,
    ...(options.path ? { path: options.path } : {}),
    // without keys, a web page the user visits must not reach a loopback server (cross-site WebSocket hijacking)
    verifyClient: ({ req }: { req: IncomingMessage }) => keys.required || req.headers.origin === undefined || origins.has(req.headers.origin),
    // it speaks no subprotocol: one asked for is not chosen (ws would echo the first, telling that client it speaks it)
    handleProtocols: () => false,
  });
  const upgrades = upgradeHandler(wss, http);
  http.on("upgrade", upgrades);
  if (!attached) http.on("error", (e) => log("the HTTP server failed", e)); // (an accept that failed, say: never the process's end)
  const handle = requestHandler(hub);
  const limits = { maxConnections: options.maxConnections ?? 256, maxPending: options.maxPending ?? 32, maxPerAddress: options.maxPerAddress ?? 32 };
  const helloTimeoutMs = options.helloTimeoutMs ?? 5_000;
  wss.on("connection", (socket, req) => {
    const address = req.socket.remoteAddress ?? "";
    if (!admit(hub.connections, address, limits, (c) => c.close(CLOSE.protocol, "no hello yet: room made for a newer connection"))) {
      // a refused socket reads on until its close completes: a broken frame then emits 'error', which unheard would end the process
      socket.on("error", () => undefined);
      return closePolitely(socket, CLOSE.full, "too many connections");
    }
    hub.connections.add(new Connection(hub, socket, handle, helloTimeoutMs, address));
  });
  wss.on("error", (e) => log("the WebSocket server failed", e));

  const where = whereServed(http.address() as AddressInfo | string, options.path);
  const heartbeat = setInterval(() => beat(hub.connections), hub.heartbeatMs);
  heartbeat.unref();

  let closing: Promise<void> | null = null;
  return {
    ...where,
    get connections() {
      return hub.connections.size;
    },
    setKeys(next) {
      if (!Array.isArray(next)) return keys.set(next); // (refuses it: settings-invalid)
      if (next.length === 0 && !loopback) throw new FunctaiError("remote-auth", "serve: this server listens beyond loopback; it needs keys");
      checkHelloFits(hub.maxPayload, next, "setKeys");
      keys.set(next);
      for (const conn of hub.connections) {
        if (!conn.grant) continue;
        if (!keys.current(conn.grant)) conn.close(CLOSE.auth, "key revoked");
        else {
          // a key whose limits changed: its companion is told what it may call and see now, not what the welcome said
          conn.programs();
          conn.pushWaiting(watcher.all);
        }
      }
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };

  async function shutdown(): Promise<void> {
    clearInterval(heartbeat);
    // the waiting list's scan in flight reads no further, and is waited for with the turns (bounded): a store closed
    // right after this resolves is not read by it
    const scanning = watcher.stop();
    for (const conn of hub.connections) conn.close(CLOSE.shutdown, "server closing");
    // wss.close waits for every socket's close handshake: a peer that never answers (asleep, stuck) would hold it for ws's 30 s
    const cut = setTimeout(() => wss.clients.forEach((s) => s.terminate()), CLOSE_GRACE_MS);
    http.off("upgrade", upgrades);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    clearTimeout(cut);
    if (!(await settled([...tasks, scanning], TURNS_GRACE_MS))) {
      // past its bound, what the server runs is let go of, not left running after close (paying a model, writing to a
      // store its owner may close now); never stopped: another server resumes a conversation's turn (a rolling deploy)
      const said = hub.runs.letGoAll();
      await settled([said, ...tasks], LET_GO_GRACE_MS);
    }
    if (!attached) {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  }
}
