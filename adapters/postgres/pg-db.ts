import type pg from "pg";
import { FunctaiError, describeError } from "../../src/errors.js";
import { called } from "./called.js";
import type { Db, Rows, Session } from "./db.js";
import { NO_IDLE_SESSION_TIMEOUT, endClient, keepsProcess, withDeadline } from "./deadline.js";
import { describeTarget, markRefusedWhole, noteCancel, storeIo } from "./errors.js";
import { Listener } from "./pg-listener.js";

type Pg = typeof pg;
let loadingPg: Promise<Pg> | null = null;

/**
 * `pg`, imported on first use: it is an optional peer dependency, so a
 * missing one is a `package-missing` FunctaiError naming it, at the store's
 * first use (never when `functai/postgres` is imported).
 */
export function loadPg(): Promise<Pg> {
  loadingPg ??= import("pg").then(
    (m) => (m as { default?: Pg }).default ?? (m as unknown as Pg),
    (e: unknown) => {
      loadingPg = null;
      throw new FunctaiError("package-missing", `functai/postgres needs the package pg (npm install pg): ${describeError(e)}`, { cause: e });
    },
  );
  return loadingPg;
}

/** How long a new connection may take before it is an error (never a hang). */
export const CONNECT_TIMEOUT_MS = 10_000;

const noop = (): void => undefined;

/** Makes a pool's new client's 'error' harmless (one function for every store: `close` takes it off a given pool again). */
const quietClient = (client: pg.PoolClient | undefined): void => void client?.on?.("error", noop); // (a listener never throws: inside an event, it would end the process)

/**
 * How many open stores use each pool. A pool's listeners (quietClient's) are
 * added by the first and taken off by the last: one set per pool, not one
 * per store (with eleven stores on a caller's pool, Node warned of a
 * listener leak on it and on each of its clients).
 */
const poolUsers = new WeakMap<pg.Pool, number>();

/** Makes `pool`'s errors harmless while a store uses it (the first store that does adds the listeners). */
function usePool(pool: pg.Pool): void {
  const users = poolUsers.get(pool) ?? 0;
  poolUsers.set(pool, users + 1);
  if (users > 0) return;
  pool.on("error", noop); // an idle client's lost connection: the pool drops it and opens another when asked
  // a checked-out client whose connection the server ends between two statements emits 'error' too: it shows at its next query, never as an unhandled event
  pool.on("connect", quietClient);
}

/** A store no longer uses `pool`: the last one takes the listeners off (a given pool outlives the store). */
function leavePool(pool: pg.Pool): void {
  const users = (poolUsers.get(pool) ?? 1) - 1;
  if (users > 0) {
    poolUsers.set(pool, users);
    return;
  }
  poolUsers.delete(pool);
  pool.off("error", noop);
  pool.off("connect", quietClient);
}

/**
 * How long a statement's answer is waited for, by default (`statementTimeoutMs`):
 * a connection left half-open in the middle of a statement (a network, NAT or
 * load balancer that dropped it; a server that forgot it) never answers, and
 * nothing else would end the wait. Far above any statement of the store on a
 * working server (each is one short transaction).
 */
export const STATEMENT_TIMEOUT_MS = 30_000;

/** How long an append waits for a lock another session holds, at most (Db.lockWaitMs). */
const LOCK_WAIT_MS = 10_000;

/** pg's transaction status of a connection (its last ReadyForQuery) inside a transaction: open ("T") or failed ("E"). */
const IN_TRANSACTION = new Set(["T", "E"]);

/** Whether a client is inside a transaction (a pg too old to tell says no). */
const inTransaction = (client: pg.PoolClient): boolean =>
  IN_TRANSACTION.has(String((client as { getTransactionStatus?: () => unknown }).getTransactionStatus?.()));

/** How many clients left inside a transaction one statement drops before it fails (each is replaced by a new connection). */
const IN_TRANSACTION_DROPS = 100;

/** How long a statement of a lock session (a lock's take or release, a question) is waited for, at most. */
const SESSION_STATEMENT_MS = 10_000;

/** The error of a statement that got no answer in time: its client is dropped, and what it did is unknown. */
const noAnswer = (target: string, ms: number): FunctaiError =>
  new FunctaiError(
    "store-io",
    `PostgreSQL store (${target}): no answer to a statement within ${ms / 1000} s, so its connection was dropped (a network, NAT or load balancer that dropped it, or a stalled server); whether it took effect is unknown: an append may have been kept, and is never sent again.`,
  );

/**
 * The sessions that hold a lock the server process `$1` waits for (none
 * when it waits for none): what a statement dropped at its deadline was
 * held by, on the server's side.
 */
const LOCK_HOLDERS = `SELECT b.pid, b.usename AS role, b.application_name AS app, b.state, b.xact_start AS since
  FROM pg_catalog.pg_stat_activity w CROSS JOIN LATERAL pg_catalog.unnest(pg_catalog.pg_blocking_pids(w.pid)) AS p(pid)
  JOIN pg_catalog.pg_stat_activity b ON b.pid = p.pid
  WHERE w.pid = $1 AND w.wait_event_type = 'Lock' ORDER BY b.pid`;

/** How often a statement without a deadline is looked for on the server (pg_stat_activity: `$1` its process). */
const WATCH_EVERY_MS = 2_000;
const RUNNING = "SELECT state FROM pg_catalog.pg_stat_activity WHERE pid = $1";

/**
 * Looks at what server process `pid` does (its pg_stat_activity state,
 * "gone" when it has none) on a connection of its own, made at the first
 * look and kept for the next ones (`end` ends it): never on a client of the
 * pool, which the statement looked at holds. A given pool with max: 1 had
 * none free for a look, and the store's first use, waiting behind another
 * store's migration, failed as if a network had dropped its connection.
 */
function activityLooks({ pg, config }: { pg: Pg; config: pg.ClientConfig }): { look(pid: number): Promise<unknown>; end(): void } {
  let client: pg.Client | null = null;
  const end = (): void => {
    if (client !== null) void endClient(client);
    client = null;
  };
  let connected: Promise<unknown> = Promise.resolve();
  const look = async (pid: number): Promise<unknown> => {
    try {
      if (client === null) {
        client = new pg.Client({ ...config, connectionTimeoutMillis: WATCH_EVERY_MS });
        client.on("error", noop);
        connected = client.connect();
      }
      const on = client;
      await connected;
      const { rows } = await withDeadline(on.query(RUNNING, [pid]), WATCH_EVERY_MS, () => {
        throw new Error("no answer");
      });
      return rows.length === 0 ? "gone" : rows[0]!["state"];
    } catch (e) {
      end();
      throw e;
    }
  };
  return { look, end };
}

/** The error of a statement without a deadline that the server no longer runs (`ended`) or that no look could ask about, and whose answer never came. */
const lostAnswer = (target: string, ended: boolean): FunctaiError =>
  new FunctaiError(
    "store-io",
    `PostgreSQL store (${target}): no answer came to a statement ${ended ? "that the server ran to its end (or whose session it ended)" : "while the server could not be asked about it"}, so its connection was dropped (a network, NAT or load balancer that dropped it); whether it took effect is unknown: the store's next call tries again.`,
  );

/**
 * The error of a statement without a deadline that a close cut short: the
 * first use's DDL, waiting for another store that makes or migrates the
 * tables (a migration may take minutes), held the close for all of it, and
 * the call behind it was sent after the close.
 */
const closedWaiting = (target: string): FunctaiError =>
  new FunctaiError(
    "store-io",
    `PostgreSQL store (${target}): the store was closed while its first use waited for the tables (made or migrated by another store meanwhile), so its connection was dropped: the call behind it was not sent.`,
  );

/** How long the look at what a statement dropped at its deadline waited for may take (a network that dropped it answers nothing). */
const LOOK_MS = 1_000;

/** A session that held a lock, in words (what pg_stat_activity let the role see; never its query, which may hold secrets). */
const holderText = (row: Record<string, unknown>): string =>
  `pid ${String(row["pid"])} (role ${String(row["role"])}, application ${JSON.stringify(row["app"] ?? "")}, ${row["state"] ? String(row["state"]) : "state not shown to this role"}${row["since"] instanceof Date ? ` since ${row["since"].toISOString()}` : ""})`;

/** The error of a statement that got no answer in time because the server held it waiting for a lock that `holders` hold. */
const lockHeld = (target: string, ms: number, holders: Record<string, unknown>[]): FunctaiError =>
  new FunctaiError(
    "store-io",
    `PostgreSQL store (${target}): no answer to a statement within ${ms / 1000} s: the server held it waiting for a lock that another session holds, ${holders.map(holderText).join("; ")} (an administrator's LOCK TABLE, VACUUM FULL or ALTER TABLE, or a transaction left open on the store's tables): end that transaction (COMMIT or ROLLBACK there, or SELECT pg_terminate_backend(pid)). Its connection was dropped; whether it took effect is unknown: an append may have been kept, and is never sent again.`,
  );

/**
 * SQLSTATEs of a statement the server rolled back whole, so that it took no
 * effect and is sent again: a serialization failure (a role or database whose
 * default_transaction_isolation is REPEATABLE READ or SERIALIZABLE, where two
 * appends or waits on one conversation meet) and a deadlock.
 */
const ROLLED_BACK = new Set(["40001", "40P01"]);

/** How many times a statement is sent again while the server refuses it as not prepared (UNPREPARED) or ended its idle session (endedIdle); then its error shows. */
const RESEND_TRIES = 10;

/**
 * How long a statement is sent again while the server rolls it back as
 * ROLLED_BACK says (then its error shows). A time, not a count: another
 * host appending to the same conversation back to back holds its row lock
 * most of the time, and an append whose snapshot was taken before that
 * host's commit is rolled back again each time it meets it (ten tries, within
 * a few hundred ms, failed a person's approval as store-io).
 */
const RESEND_MS = 5_000;

/** The longest pause before a statement is sent again (a random part of it: the hosts that met part ways). */
const RESEND_PAUSE_MS = 100;

/** Whether the server rolled a statement back whole (ROLLED_BACK). */
const rolledBack = (e: unknown): boolean => ROLLED_BACK.has(String((e as { code?: unknown } | null)?.code));

/**
 * SQLSTATEs of a prepared statement the connection no longer has, or has
 * already, though pg's cache says otherwise: one let go of by a pool's user
 * (`DEALLOCATE ALL`, `DISCARD ALL` when it hands a connection back), or
 * prepared by another. The server refused its Bind (or Parse), so it never
 * ran: its connection is dropped (pg would send it the same way there for
 * good, every statement of the store failing on it) and it is sent again on
 * another, which prepares it anew.
 */
const UNPREPARED = new Set(["26000", "42P05"]);

/** Whether a named statement failed as UNPREPARED says (never ran; its connection's cache of prepared statements is wrong). */
const unprepared = (e: unknown, name: string | undefined): boolean =>
  name !== undefined && UNPREPARED.has(String((e as { code?: unknown } | null)?.code));

/**
 * Whether the server answered a statement by ending its session at its
 * idle_session_timeout (57P05): a pool's client it ended while idle, handed
 * out before the pool heard of it (the FATAL came just after the statement
 * left). The server ends a session so only while it waits for a statement,
 * and a FATAL that comes as it begins one rolls its transaction back (the
 * append function checks for it before its commit), so the statement took no
 * effect: it is sent again on another connection (an append failed as
 * store-io, nothing written, under a role with such a timeout).
 */
const endedIdle = (e: unknown): boolean => (e as { code?: unknown } | null)?.code === "57P05";

/**
 * Sends a statement again, after a short random wait each time, while the
 * server rolls it back whole, or (`named`) refuses it as not prepared, or
 * ended its idle session (endedIdle: each of a pool's idle clients may be):
 * `error` is its first answer's.
 */
async function resent(send: () => Promise<Rows>, error: unknown, name?: string): Promise<Rows> {
  const until = Date.now() + RESEND_MS;
  const again = (e: unknown, tries: number): boolean =>
    (rolledBack(e) && Date.now() < until) || ((unprepared(e, name) || endedIdle(e)) && tries <= RESEND_TRIES);
  for (let tries = 1; again(error, tries); tries++) {
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** tries, RESEND_PAUSE_MS)));
    try {
      return await send();
    } catch (e) {
      error = e;
    }
  }
  throw error;
}

/** Whether an error is the server's answer to a statement (its severity is in the server's language: FATAL may read "ВАЖНО" or "FATALE"). */
const answered = (e: unknown): boolean =>
  typeof (typeof e === "object" && e !== null ? (e as { severity?: unknown }).severity : undefined) === "string";

/** pg's Client's own state, which its types leave out. */
interface Wire {
  readyForQuery?: unknown;
  _ended?: unknown;
  _queryable?: unknown;
  connection?: { once?: (event: string, f: () => void) => unknown; off?: (event: string, f: () => void) => unknown };
}

/**
 * Whether a connection goes on after the server answered its statement
 * with an error: its ReadyForQuery came (or comes), not its end. A FATAL
 * error (exit_on_error, an administrator's terminate) is followed by the
 * server closing the connection instead. Told by what the connection does,
 * never by the error's severity, which a server whose lc_messages is not
 * English words otherwise: its connection went back to the pool as healthy
 * and the next statement failed on it. A pg too old to tell: the English
 * severity; no word in LOOK_MS: not.
 */
function goesOn(client: pg.PoolClient, e: unknown): Promise<boolean> {
  const wire = client as unknown as Wire;
  if (wire.readyForQuery === true) return Promise.resolve(true);
  if (wire._ended === true || wire._queryable === false) return Promise.resolve(false);
  const { once, off } = wire.connection ?? {};
  if (typeof once !== "function" || typeof off !== "function") {
    const severity = (e as { severity?: unknown }).severity;
    return Promise.resolve(severity !== "FATAL" && severity !== "PANIC");
  }
  const connection = wire.connection!;
  return new Promise((resolve) => {
    const done = (yes: boolean) => (): void => {
      clearTimeout(timer);
      off.call(connection, "readyForQuery", ready);
      off.call(connection, "end", ended);
      resolve(yes);
    };
    const ready = done(true);
    const ended = done(false);
    once.call(connection, "readyForQuery", ready);
    once.call(connection, "end", ended);
    const timer = setTimeout(ended, LOOK_MS);
    (timer as { unref?: () => void }).unref?.();
  });
}

/** The session's statement_timeout, in ms (0: none). */
const STATEMENT_TIMEOUT = "SELECT setting FROM pg_catalog.pg_settings WHERE name = 'statement_timeout'";

/**
 * Says (noteCancel) how a statement the server cancelled (57014) came to
 * be, on its connection, which goes on: it ran `ranMs` (from its sending,
 * so never less than the server counted), at least the session's
 * statement_timeout (the server's own cancel), or less (someone's cancel
 * request). Never from the server's message, which is in its language.
 * False when its connection did not answer (it is dropped; the error is then
 * said as either).
 */
async function howCancelled(client: pg.PoolClient, e: unknown, ranMs: number): Promise<boolean> {
  const asked = client.query<{ setting: string }>(STATEMENT_TIMEOUT).then(
    ({ rows }) => {
      const limit = Number(rows[0]?.setting);
      noteCancel(e, limit > 0 && ranMs >= limit ? "timeout" : "cancel");
      return true;
    },
    () => false,
  );
  return withDeadline(asked, LOOK_MS, () => false);
}

/**
 * Rejects with the server's error answer `e` to a statement that ran
 * `ranMs`, once its connection is known to go on (released to the pool) or
 * not (a FATAL one: dropped), and a cancel is told for what it was. The
 * usual case, an ERROR whose ReadyForQuery came with it, at once.
 */
async function afterRefusal(client: pg.PoolClient, e: unknown, ranMs: number, release: (e?: Error) => void): Promise<never> {
  let ok = await goesOn(client, e);
  if (ok) {
    markRefusedWhole(e);
    if ((e as { code?: unknown }).code === "57014") ok = await howCancelled(client, e, ranMs);
  }
  release(ok ? undefined : (e as Error));
  throw e;
}

/** How long a store keeps trying to connect while the server is down or starting (a restart): then the error shows. */
export const RECONNECT_MS = 20_000;

/**
 * Errors of a connection that could not be made (nothing was sent): safe to
 * try again once the server was reached before. ENOENT: a unix socket's file
 * missing, as while its server restarts (it removes the file on shutdown and
 * makes it again on start; over TCP the same restart is ECONNREFUSED).
 */
const retriable = (e: unknown): boolean =>
  ["ECONNREFUSED", "ENOENT", "ECONNRESET", "57P03", "57P01", "EPIPE"].includes(String((e as { code?: unknown }).code)) ||
  /terminat/i.test(String((e as Error)?.message));

/**
 * Whether a connect failed as the other side ended it, with no word of a
 * server's (not a PostgreSQL refusal such as 57P03, which has a code; not
 * pg's "Connection terminated due to connection timeout", no answer at all).
 */
const endedUnmade = (e: unknown): boolean =>
  (e as { code?: unknown } | null)?.code === undefined && /Connection terminated unexpectedly/i.test(String((e as Error | null)?.message));

/**
 * A first connect that the address ended before it was made: said as that,
 * never as "a server restart … may be retried" (storeIo's words for a
 * connection lost), which sent its reader after a server that never was.
 */
const notPostgres = (target: string, cause: unknown): FunctaiError =>
  new FunctaiError(
    "store-io",
    `PostgreSQL store (${target}): could not connect: the address ended the connection before it was made (is PostgreSQL listening at that host and port? Another service's port, or a proxy that wants TLS first (?sslmode=require), ends it so; so does a server starting or stopping).`,
    { cause },
  );

/**
 * Connects; while a server this store reached before is down or starting
 * (a restart), tries again (100 ms doubling to 1 s) for up to RECONNECT_MS.
 * A server never reached fails at once: a wrong address is not waited on.
 */
async function connecting<T>(connect: () => Promise<T>, reached: { ever: boolean; closed: boolean }, target: string): Promise<T> {
  const deadline = Date.now() + RECONNECT_MS;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      const connected = await connect();
      reached.ever = true;
      return connected;
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause ?? e;
      if (!reached.ever && endedUnmade(cause)) throw notPostgres(target, cause);
      const startingUp = (cause as { code?: unknown }).code === "57P03";
      // a closed store stops trying (its listener's reconnecting would keep the process up for RECONNECT_MS)
      if (!(reached.ever || startingUp) || !retriable(cause) || Date.now() + delay > deadline || reached.closed) throw e;
      await new Promise((r) => setTimeout(r, delay));
      if (reached.closed) throw e;
    }
  }
}

/**
 * A lock's session: server-side TCP keepalives, so a host cut off from the
 * network loses its advisory lock within about 10 s (a dead process at
 * once); and no `idle_session_timeout` (NO_IDLE_SESSION_TIMEOUT).
 */
const SESSION_SETTINGS = `SET tcp_keepalives_idle = 4; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3; ${NO_IDLE_SESSION_TIMEOUT}`;

async function openClient(Client: Pg["Client"], config: pg.ClientConfig, target: string): Promise<pg.Client> {
  const client = new Client({ ...config, keepAlive: true });
  client.on("error", noop); // a lost connection shows at its next query; never an unhandled 'error'
  try {
    await client.connect();
  } catch (e) {
    void endClient(client);
    throw storeIo(e, "connect", target);
  }
  return client;
}

/**
 * The settings of the store's own connections (the listener's, the lock
 * session's): the pool's. Its password too, which pg-pool keeps as a
 * property that is not enumerable (so that it shows in no log): a spread of
 * the options left it out, and every such connection went without one. Its
 * connect limit, unless it has none (0, pg's default): connecting never hangs.
 */
function ownConfig(options: pg.ClientConfig): pg.ClientConfig {
  const limit = options.connectionTimeoutMillis;
  return {
    ...options,
    password: options.password,
    connectionTimeoutMillis: typeof limit === "number" && limit > 0 ? limit : CONNECT_TIMEOUT_MS,
  };
}

/** What a `Db` on pg uses, made on first use (when `pg` is loaded). */
interface Opened {
  pg: Pg;
  pool: pg.Pool;
  config: pg.ClientConfig;
}

/** A `Db` on a `pg.Pool` (made here from a connection string, or the caller's own); `pg` is loaded on first use. */
export function pgDb(connection: { connectionString: string } | { pool: pg.Pool }, statementTimeoutMs = STATEMENT_TIMEOUT_MS): Db {
  const owned = !("pool" in connection);
  const target = describeTarget(owned ? connection.connectionString : undefined);
  let opening: Promise<Opened> | null = null;
  /** What `opening` resolved to, once it has. */
  let opened: Opened | undefined;
  const open = (): Promise<Opened> =>
    (opening ??= loadPg().then(
      (pg) => {
        const pool: pg.Pool = owned
          ? // allowExitOnIdle: an idle client never keeps the process alive (a script whose turns are done exits, not 10 s or more later)
            new pg.Pool({ connectionString: connection.connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, allowExitOnIdle: true })
          : connection.pool;
        usePool(pool);
        opened = { pg, pool, config: ownConfig(pool.options as pg.ClientConfig) };
        return opened;
      },
      (e: unknown) => {
        opening = null;
        throw e;
      },
    ));
  /** A connection of its own (not the pool's), for the listener and lock sessions. */
  const ownClient = async (): Promise<pg.Client> => {
    const { pg, config } = await open();
    return connecting(() => openClient(pg.Client, config, target), reached, target);
  };
  const listeners = new Set<Listener>();
  /** What cuts short each statement without a deadline under way (`watched`): the store is closing. */
  const cutShort = new Set<() => void>();
  /** Whether `close` took this store's use of the pool off (usePool). */
  let left = false;
  const reached = { ever: false, closed: false };

  /**
   * One statement on a client of the pool, which goes back to the pool after
   * it (dropped when its connection is suspect). With `deadline` (true:
   * statementTimeoutMs; a number: that, or statementTimeoutMs if shorter), one
   * that gets no answer in time drops its client and fails (noAnswer); the
   * DDL of a first use has none (it may wait for another process's, under the
   * schema's advisory lock).
   */
  const runOn = (
    client: pg.PoolClient,
    text: string,
    params: readonly unknown[] | undefined,
    name: string | undefined,
    deadline: boolean | number = true,
  ): Promise<Rows> => {
    const values = params as unknown[] | undefined;
    const start = Date.now();
    let released = false;
    const release = (e?: Error): void => {
      if (released) return;
      released = true;
      client.release(e);
    };
    const sent = called(
      () => (name === undefined ? client.query(text, values) : client.query({ name, text, values: values ?? [] })) as Promise<Rows>,
    ).then(
      (rows) => {
        release();
        return rows;
      },
      (e: unknown) => {
        // not the server's answer: the connection is suspect or gone; or its prepared statements are not what pg
        // takes them for (UNPREPARED): pg would fail them there again
        if (!answered(e) || unprepared(e, name)) {
          release(e as Error);
          throw e;
        }
        return afterRefusal(client, e, Date.now() - start, release);
      },
    );
    if (deadline === false) return watched(client, sent, release);
    const ms = deadline === true ? statementTimeoutMs : Math.min(deadline, statementTimeoutMs);
    return withDeadline(sent, ms, () => {
      const e = noAnswer(target, ms);
      const pid = (client as { processID?: unknown }).processID;
      // (not for a best-effort statement given a shorter wait: a close waits for those, and the look would add to it)
      if (deadline !== true || typeof pid !== "number" || opened === undefined || reached.closed) {
        release(e); // (the pool ends it: never handed out again)
        throw e;
      }
      // its connection ended only after the look (ended first, its statement failed at once as "Connection terminated", which reads "may be retried")
      return lockHolders(opened, pid).then((holders) => {
        release(e);
        throw holders.length > 0 ? lockHeld(target, ms, holders) : e;
      });
    });
  };

  /**
   * A statement without a deadline (first use's DDL, which may wait for
   * another store's migration however long it takes), waited for only while
   * the server runs it: looked for every WATCH_EVERY_MS, it is given up
   * (its connection dropped, failing as `lostAnswer`) once two looks in a
   * row find the server ran it to its end or its session gone and no answer
   * came (a connection left half-open: it hung for good, and every call of
   * the store behind it), or no look is answered for the statement deadline.
   */
  const watched = (client: pg.PoolClient, sent: Promise<Rows>, release: (e?: Error) => void): Promise<Rows> => {
    const pid = (client as { processID?: unknown }).processID;
    if (typeof pid !== "number" || opened === undefined) return sent;
    const looks = activityLooks(opened);
    return new Promise<Rows>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const settle = (): void => {
        settled = true;
        clearTimeout(timer);
        cutShort.delete(cut);
        looks.end();
      };
      // (its connection dropped: the pool, ended next, never waits for it; what the server does with it later is the DDL's own, made again by the next first use)
      const cut = (): void => {
        if (settled) return;
        settle();
        const e = closedWaiting(target);
        release(e);
        reject(e);
      };
      cutShort.add(cut);
      sent.then(
        (rows) => {
          settle();
          resolve(rows);
        },
        (e: unknown) => {
          settle();
          reject(e);
        },
      );
      let ended = 0;
      let heard = Date.now();
      const look = (): void => {
        timer = setTimeout(() => {
          looks.look(pid).then(
            (state) => {
              heard = Date.now();
              ended = state === "gone" || state === "idle" ? ended + 1 : 0; // (null: not shown to this role, so not known to have ended)
            },
            () => undefined,
          ).then(() => {
            if (settled) return;
            if (ended < 2 && Date.now() - heard < statementTimeoutMs) return look();
            settle();
            const e = lostAnswer(target, ended >= 2);
            release(e); // (the pool ends it: never handed out again)
            reject(e);
          });
        }, WATCH_EVERY_MS);
        (timer as { unref?: () => void }).unref?.();
      };
      look();
    });
  };

  /**
   * The sessions that hold a lock the server process `pid` waits for, asked
   * on a connection of its own for LOOK_MS at most (none: it waits for no
   * lock, or no answer came). Why a statement got no answer in time: a read
   * behind a VACUUM FULL, which no bound of its own can come before (it locks
   * its tables as it is parsed), is no network failure.
   */
  const lockHolders = async ({ pg, config }: Opened, pid: number): Promise<Record<string, unknown>[]> => {
    const look = new pg.Client({ ...config, connectionTimeoutMillis: LOOK_MS });
    look.on("error", noop);
    const asked = look.connect().then(() => look.query(LOCK_HOLDERS, [pid]));
    const holders = await withDeadline(
      asked.then(
        (r) => r.rows as Record<string, unknown>[],
        () => [],
      ),
      LOOK_MS,
      () => [],
    );
    void endClient(look);
    return holders;
  };

  /**
   * A client of the pool, never a wait without end: a pool made here has
   * connectionTimeoutMillis; a given pool's may have none (pg's default),
   * and it never answers the connects queued when it is ended, so its
   * connect is given CONNECT_TIMEOUT_MS here. A client it hands over later
   * goes back to it at once.
   */
  const take = (pool: pg.Pool, dropped = 0): Promise<pg.PoolClient> => {
    const connect = pool.connect();
    if (owned) return connect;
    return withDeadline(connect, CONNECT_TIMEOUT_MS, () => {
      void connect.then((client) => client.release(), noop);
      throw new FunctaiError(
        "store-io",
        `PostgreSQL store (${target}): no client of the given pool was free within ${CONNECT_TIMEOUT_MS / 1000} s (its clients are all checked out, or the pool was ended): raise the pool's max, release the clients your code holds, or close the store before ending the pool.`,
      );
    }).then((client) => (inTransaction(client) ? dropInTransaction(pool, client, dropped) : client));
  };

  /**
   * A given pool's client that its user handed back inside a transaction:
   * a statement sent on it would run in that transaction (an append resolved
   * as kept, seen by no other connection, and gone with a ROLLBACK), or
   * fail for good in a failed one. It is dropped (the pool ends it, and the
   * server rolls its transaction back) and another is taken, a fresh
   * connection at the latest.
   */
  const dropInTransaction = (pool: pg.Pool, client: pg.PoolClient, dropped: number): Promise<pg.PoolClient> => {
    client.release(new Error("handed back to the pool inside a transaction"));
    if (dropped < IN_TRANSACTION_DROPS) return take(pool, dropped + 1);
    return Promise.reject(
      new FunctaiError(
        "store-io",
        `PostgreSQL store (${target}): the given pool's clients kept coming back inside a transaction (${dropped + 1} dropped): release a client only after its COMMIT or ROLLBACK (or with client.release(error)).`,
      ),
    );
  };

  /** One statement on a client of the pool (see runOn), sent again while the server rolls it back whole (`resent`). */
  const statement = (
    text: string,
    params: readonly unknown[] | undefined,
    name: string | undefined,
    deadline: boolean | number = true,
  ): Promise<Rows> => {
    // (the usual case, an answer, without another promise around it)
    return sendOnce(text, params, name, deadline).catch((e: unknown) => resent(() => sendOnce(text, params, name, deadline), e, name));
  };

  const sendOnce = (text: string, params: readonly unknown[] | undefined, name: string | undefined, deadline: boolean | number): Promise<Rows> => {
    // a connection that cannot be made yet (a restarting server) is waited for; a statement sent is never sent twice
    const waited = (pool: pg.Pool): Promise<Rows> =>
      connecting(() => take(pool), reached, target).then((client) => runOn(client, text, params, name, deadline));
    const ready = opened;
    // the usual case, a pool made and a server reached: a client at once (connecting's waits only once that fails)
    if (ready !== undefined && reached.ever)
      return take(ready.pool).then(
        (client) => runOn(client, text, params, name, deadline),
        // (a given pool with no free client in time is said at once, not waited on again)
        (e: unknown) => (e instanceof FunctaiError ? Promise.reject(e) : waited(ready.pool)),
      );
    return open().then(({ pool }) => waited(pool));
  };

  const db: Db = {
    target,
    // (half the deadline: the server's refusal, nothing written, comes well before the statement is dropped, outcome unknown)
    lockWaitMs: Math.max(1, Math.min(LOCK_WAIT_MS, Math.floor(statementTimeoutMs / 2))),
    query: (text, params, name, ms) => statement(text, params, name, ms ?? true),
    async lockBounded(text, lockMs) {
      // (one Query message: one implicit transaction, so the setting is this statement's alone, never left on a pooled connection)
      const ms = Math.max(1, Math.floor(lockMs));
      const results = (await statement(
        `SELECT CASE WHEN pg_catalog.current_setting('lock_timeout') = '0' THEN pg_catalog.set_config('lock_timeout', '${ms}', true) END; ${text}`,
        undefined,
        undefined,
      )) as unknown as Rows[];
      return results[results.length - 1]!;
    },
    async exec(sql) {
      await statement(sql, undefined, undefined, false);
    },
    async listen(channel, onNotify, onReconnect) {
      const listener = new Listener(ownClient, channel, onNotify, onReconnect);
      listeners.add(listener);
      try {
        await listener.start();
      } catch (e) {
        listeners.delete(listener);
        await listener.stop();
        throw e;
      }
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    async session(): Promise<Session> {
      const client = await ownClient();
      const ms = Math.min(statementTimeoutMs, SESSION_STATEMENT_MS);
      try {
        // (with the deadline of its later statements: an answer that never comes would hold every hold of the store)
        const opening = client.query(SESSION_SETTINGS).then(() => client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"));
        const { rows } = await withDeadline(opening, ms, () => {
          throw new FunctaiError(
            "store-io",
            `PostgreSQL store (${target}): no answer within ${ms / 1000} s to the statements that open a lock session, so its connection was dropped (a network, NAT or load balancer that dropped it, or a stalled server).`,
          );
        });
        // one statement at a time: a session is shared by every turn of a store, and pg no longer queues them itself
        let last: Promise<unknown> = Promise.resolve();
        // told by the connection itself (a backend the server ended, a socket closed): its locks are gone with it
        let gone = false;
        const lose = (): void => void (gone = true);
        client.on("end", lose);
        client.on("error", lose);
        // its socket keeps the process alive only while a statement is out or a turn's lock is held (`keep`): an idle
        // session left open for the next turn kept a script whose turns were all done alive, though it had nothing to do
        let out = 0;
        let kept = false;
        const refer = (): void => keepsProcess(client, out > 0 || kept);
        refer();
        return {
          pid: rows[0]!.pid,
          gone: () => gone,
          keep: (yes) => {
            kept = yes;
            refer();
          },
          query: (text, params) => {
            out++;
            refer();
            const running = last.then(() => client.query(text, params as unknown[] | undefined) as Promise<Rows>);
            last = running.catch(noop);
            void last.then(() => {
              out--;
              refer();
            });
            // a session that does not answer is lost: ended (its locks go with it, on the server's side), never waited on
            return withDeadline(running, ms, () => {
              gone = true;
              void endClient(client);
              throw noAnswer(target, ms);
            });
          },
          end: () => endClient(client),
        };
      } catch (e) {
        void endClient(client);
        throw storeIo(e, "open a session", target);
      }
    },
    closing() {
      reached.closed = true;
      for (const cut of [...cutShort]) cut();
    },
    async close() {
      reached.closed = true;
      for (const l of [...listeners]) await l.stop();
      listeners.clear();
      const opened = await opening?.catch(() => null);
      // a given pool outlives the store: a store made per request on a shared pool must not leave its listeners on it;
      // its own pool keeps them: its end resolves before its connections are ended, and one the server ends first
      // (its FATAL before it reads the Terminate) makes the pool emit 'error', which without a listener ends the process
      if (opened && !left && !owned) leavePool(opened.pool);
      left = true; // (once: a second close would count another store's use off)
      if (owned && opened) await opened.pool.end().catch(noop);
    },
  };
  return db;
}
