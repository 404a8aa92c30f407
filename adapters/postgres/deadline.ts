import type pg from "pg";

/**
 * Waiting on a connection with an end: one left half-open by the network
 * (a partition, a NAT or load balancer that forgot the flow, a server that
 * ended it unheard) never answers, and nothing else would end the wait.
 */

const noop = (): void => undefined;

/**
 * `p`, or what `onLate` gives (or throws, or a promise of it) once `ms` have passed; `p` is then
 * no longer waited for (its rejection is never unhandled). The timer never
 * keeps a process alive.
 *
 * @example
 * const rows = await withDeadline(client.query(text), 30_000, () => { throw new Error("no answer"); });
 */
export function withDeadline<T>(p: Promise<T>, ms: number, onLate: () => T | PromiseLike<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      p.catch(noop);
      try {
        resolve(onLate());
      } catch (e) {
        reject(e);
      }
    }, ms);
    (timer as { unref?: () => void }).unref?.();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** How long a connection's answer to `SELECT 1` is waited for before it is taken as lost. */
export const PROBE_TIMEOUT_MS = 5_000;

/** Whether a connection answers `SELECT 1` (asked by `ask`) within PROBE_TIMEOUT_MS: an error or no answer, it is lost. */
export const answers = (ask: (text: string) => Promise<unknown>): Promise<boolean> =>
  withDeadline(
    ask("SELECT 1").then(
      () => true,
      () => false,
    ),
    PROBE_TIMEOUT_MS,
    () => false,
  );

/**
 * Turns off `idle_session_timeout` (PostgreSQL 14 on; a pool's options, the
 * role or the database may set one) for a connection of the store's own that
 * idles by design: a lock session, whose turns idle in a tool or a model
 * call, and the LISTEN connection, which waits between its probes. Ended by
 * the server, a lock session's turns would read interrupted while they run,
 * and the LISTEN connection was made again after each timeout, for as long as
 * the store lived. A no-op on a server without the setting.
 */
export const NO_IDLE_SESSION_TIMEOUT =
  "SELECT pg_catalog.set_config(name, '0', false) FROM pg_catalog.pg_settings WHERE name = 'idle_session_timeout'";

/** How long a connection's graceful end is waited for before its socket is destroyed. */
export const END_MS = 1_000;

/**
 * Ends a connection of the store's own: gracefully (the server frees its
 * session, and its locks, at once), but for END_MS at most. A server's side
 * gone silent (a cable pulled, a firewall that drops every packet) never
 * answers the end, and it would be waited for as long as the operating
 * system keeps the socket (a store's close with it): then the socket is
 * destroyed. Never rejects.
 */
export function endClient(client: pg.Client): Promise<void> {
  const ending = client.end().catch(noop);
  return withDeadline(ending, END_MS, () => {
    // (pg has no public way to drop a connection that does not answer its end)
    (client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
  });
}

/** Whether a client's socket keeps the process alive (pg's Client.ref/unref, which its types leave out; absent in an old pg). */
export function keepsProcess(client: object, yes: boolean): void {
  const c = client as { ref?: () => void; unref?: () => void };
  if (yes) c.ref?.();
  else c.unref?.();
}
