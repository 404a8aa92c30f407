/**
 * The WebSocket a companion uses: the browser's own, or `ws` in Node (loaded
 * only when there is no global WebSocket, so bundles for browsers never need it).
 */
import { FunctaiError } from "../../../src/errors.js";
import { RemoteError } from "../shared/errors.js";

/**
 * The part of the WebSocket API both the browser's and `ws`'s share, and that `connect` uses.
 *
 * @example
 * const socket: SocketLike = new WebSocket("wss://desk.example/functai"); // the browser's, or ws's in Node
 * socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "hello", id: "1", v: PROTOCOL_VERSION })));
 */
export interface SocketLike {
  readonly readyState: number;
  /** Sends one text frame. */
  send(data: string): void;
  /** Closes the connection. */
  close(code?: number, reason?: string): void;
  /** Listens for the connection's events. */
  addEventListener(type: "open" | "error", listener: () => void): void;
  /** Listens for each message. */
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  /** Listens for the close, with its code and reason. */
  addEventListener(type: "close", listener: (event: { code: number; reason: string }) => void): void;
}

/**
 * A WebSocket class: the browser's `WebSocket`, or `ws` in Node.
 *
 * @example
 * const Socket: SocketConstructor = WebSocket;
 */
export type SocketConstructor = new (url: string) => SocketLike;

export const OPEN = 1;

/** The given constructor, else the global `WebSocket`, else `ws`'s. */
export async function socketConstructor(given?: SocketConstructor): Promise<SocketConstructor> {
  if (given) return given;
  const native = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof native === "function") return native as SocketConstructor;
  const ws = await import("ws");
  return ws.WebSocket as unknown as SocketConstructor;
}

/**
 * Opens a socket; rejects when it closes before opening (`remote-closed`), or
 * when `url` is not one a WebSocket takes (`settings-invalid`): a user sees
 * a FunctaiError with a code, never the socket's own. A server that takes
 * the connection but never answers the upgrade (a stuck process, a balancer
 * whose backend is down) is given up on after `timeoutMs` (`remote-closed`),
 * its socket closed: `ws` has no deadline of its own, and a connect or a
 * reconnect would wait on it for ever. `created` is told the socket at once
 * (a `close()` meanwhile closes it).
 */
export function openSocket(Socket: SocketConstructor, url: string, timeoutMs: number, created?: (socket: SocketLike) => void): Promise<SocketLike> {
  return new Promise((resolve, reject) => {
    let socket: SocketLike;
    try {
      socket = new Socket(url);
    } catch (e) {
      return reject(
        new FunctaiError("settings-invalid", `connect: ${JSON.stringify(url.slice(0, 200))} is not a WebSocket URL (ws:// or wss://)`, { cause: e }),
      );
    }
    created?.(socket);
    let opened = false;
    const timer = setTimeout(() => {
      reject(new RemoteError({ code: "remote-closed", message: `could not connect to ${url}: no answer to the upgrade in ${timeoutMs} ms` }));
      socket.close(); // (while connecting: the handshake is aborted, the connection let go)
    }, timeoutMs);
    socket.addEventListener("open", () => {
      clearTimeout(timer);
      opened = true;
      resolve(socket);
    });
    // `ws` says the HTTP status of an upgrade the server answered without switching (its error, then a bare 1006)
    let status: number | undefined;
    socket.addEventListener("close", (e) => {
      clearTimeout(timer);
      if (opened) return;
      if (status !== undefined) return reject(new UpgradeRefused(url, status));
      // (a browser's 1006 says no more: a server down, or one that refused the upgrade, alike)
      const unsaid = e.code === 1006 ? ": the network, or the server refused the upgrade (its path, its origins, a proxy)" : "";
      reject(new RemoteError({ code: "remote-closed", message: `could not connect to ${url} (${e.code}${unsaid})` }));
    });
    socket.addEventListener("error", (e?: unknown) => {
      status ??= refusedStatus(e);
    });
  });
}

/**
 * The server answered the upgrade with an HTTP status, never switching: 401 or 403 is `remote-auth` (the origin not let
 * in, a proxy's credentials), another 4xx `remote-protocol` (a wrong path, not a WebSocket endpoint), each said again
 * at every try; a 5xx, 408 or 429 is `remote-closed` (a proxy whose server is restarting: a try later may get through).
 */
export class UpgradeRefused extends RemoteError {
  /** Whether each try would be told the same (a 4xx but 408 and 429), not a passing state of the server or a proxy. */
  readonly lasting: boolean;
  constructor(
    url: string,
    readonly status: number,
  ) {
    const lasting = status >= 400 && status < 500 && status !== 408 && status !== 429;
    const auth = status === 401 || status === 403;
    const check = auth
      ? "check the origins it lets in, or a proxy's credentials (a key is checked later, in the hello)"
      : lasting
        ? "check the URL's path (the server's `path`) and that it is a functai WebSocket server"
        : "it or a proxy before it could not take the connection now";
    super({
      code: auth ? "remote-auth" : lasting ? "remote-protocol" : "remote-closed",
      message: `could not connect to ${url}: the server refused the upgrade (HTTP ${status}); ${check}`,
    });
    this.lasting = lasting;
  }
}

/** The HTTP status in `ws`'s error for an upgrade answered without switching ("Unexpected server response: 401"). */
function refusedStatus(e: unknown): number | undefined {
  const error = e as { message?: unknown; error?: { message?: unknown } } | null | undefined;
  const text = typeof error?.message === "string" ? error.message : error?.error?.message;
  const m = typeof text === "string" ? /^Unexpected server response: (\d{3})$/.exec(text) : null;
  return m ? Number(m[1]) : undefined;
}
