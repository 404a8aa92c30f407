import { FunctaiError, describeError } from "../../src/errors.js";

/** The host a URL without one (`postgres://user:pw@/db?host=/var/run/postgresql`) is read with, as pg reads it: never shown. */
const NO_HOST = "functai-no-host";

/**
 * `connectionString` as a URL, read as pg reads it: one with no host before
 * its path (`user:pw@/db`, a unix socket's form, the socket named by
 * `?host=`) is a URL to pg, though not to `new URL`. Throws if it is none.
 */
export function connectionUrl(connectionString: string): URL {
  try {
    return new URL(connectionString);
  } catch (e) {
    if (!connectionString.includes("@/")) throw e;
    return new URL(connectionString.replace("@/", `@${NO_HOST}/`));
  }
}

/** Where the store connects, with any password hidden: safe to put in a message. */
export function describeTarget(connectionString: string | undefined): string {
  if (connectionString === undefined) return "the given pool's server";
  try {
    const url = connectionUrl(connectionString);
    if (url.password) url.password = "***";
    // pg reads a password from the query too (?password=…, ?sslpassword=…)
    for (const key of [...url.searchParams.keys()]) if (/password/i.test(key)) url.searchParams.set(key, "***");
    return url.toString().replace(`@${NO_HOST}/`, "@/");
  } catch {
    return "the given connection string";
  }
}

/** The `code` of an error the store raises on rows it read that are not what it writes (never a server's). */
export const DAMAGED = "functai-damaged";

/**
 * The SQLSTATE the append function (schema.ts) raises on rows that disagree
 * with each other. A class of its own, not the server's XX001, which says a
 * page on disk is corrupt (an alarm of its own to whoever runs the server).
 */
export const DAMAGED_STATE = "FD001";

/** The SQLSTATE the first use's DDL (schema.ts) raises on a schema that holds tables the store did not make (another program's). */
export const FOREIGN_STATE = "FD002";

/** An error for rows that are not what the store writes: storeIo says they are damaged. */
export const damaged = (why: string): Error => Object.assign(new Error(why), { code: DAMAGED });

/**
 * Whether the server refused a statement for damaged rows: the append
 * function's own refusal (schema.ts's DAMAGED_STATE), or a batch's key
 * already taken, which an append under the conversation's row lock never
 * meets unless rows were changed by hand (so one the function's checks let
 * by is still told as damage, not as a bare duplicate key).
 */
const damagedOnServer = (code: string, constraint: unknown): boolean => code === DAMAGED_STATE || (code === "23505" && constraint === "batches_pkey");

const FIXES: Record<string, string> = {
  [DAMAGED]:
    "the rows are damaged: not what this store writes (its tables were changed by hand?); nothing was read or written as something else: restore them, e.g. from a backup",
  [FOREIGN_STATE]:
    'the schema holds tables of the same names that this store did not make (another program\'s?): give the store a schema of its own, e.g. { schema: "functai" }',
  "28P01": "the password (or user) is wrong: fix them in the connection string",
  "28000": "the server refuses this user or address (pg_hba.conf): use a role the server lets in",
  "3D000": "that database does not exist: create it or name another in the connection string",
  "42501":
    "the role lacks a privilege: grant it (for the schema: CREATE on the database), or create the schema beforehand, owned by the store's role",
  "57P03": "the server is starting up or shutting down: try again in a moment",
  "25006":
    "the server takes only read-only transactions (a hot standby or read replica, or default_transaction_read_only set for the role or database): connect to the primary, or turn the setting off for the store's role",
  "40001":
    "the server kept refusing to serialize it with other transactions (the role or database defaults to REPEATABLE READ or SERIALIZABLE; it was sent again several times): set default_transaction_isolation to 'read committed' for the store's role",
  "40P01":
    "the server found a deadlock with other transactions again and again (it was sent again several times): find what else locks the store's rows",
  "53300": "no connection slots are left (the server's max_connections, or the role's CONNECTION LIMIT): raise the limit or use fewer connections",
  // a limit set on the server (or the role, or the pool's options) ended it: a statement_timeout is no network problem
  "25P03":
    "the server ended the session for idling in a transaction (its idle_in_transaction_session_timeout): raise it for this role, or set it to 0",
  "57P05":
    "the server ended the idle session (its idle_session_timeout): the store opens another; raise it for this role, or set it to 0, if this repeats",
  "55P03":
    "a lock it needed was not granted in time (lock_timeout: the role's, or the store's own where the role sets none): another session's transaction holds it (one left open on the store's rows, an administrator's LOCK TABLE, VACUUM FULL or ALTER); nothing was written: find and end that transaction, or raise lock_timeout for this role",
  "55000":
    "that database does not accept connections now (ALLOW_CONNECTIONS false, or it is being dropped): allow them (ALTER DATABASE … ALLOW_CONNECTIONS true) or name another",
};

/**
 * How a statement the server cancelled (57014) came to be cancelled, as the
 * store found it (pg-db.ts): it ran for the session's statement_timeout
 * (`"timeout"`), or was cancelled before it (`"cancel"`: pg_cancel_backend,
 * a client's cancel request). Never read from the server's message, which
 * is in the server's language (its lc_messages).
 */
const cancelled = new WeakMap<object, "timeout" | "cancel">();

/** Says how the statement that failed with `e` (57014) came to be cancelled (see `cancelled`). */
export const noteCancel = (e: unknown, how: "timeout" | "cancel"): void => {
  if (typeof e === "object" && e !== null) cancelled.set(e, how);
};

/**
 * Errors the server answered a statement with on a connection that went on
 * (its ReadyForQuery came: no FATAL): the statement's transaction was rolled
 * back whole, nothing of it took effect. Known by what the connection did
 * (pg-db.ts), never by the severity's word, which is in the server's
 * language ("ERROR" reads "FEHLER" in German).
 */
const refusedWhole = new WeakSet<object>();

/** Says the server answered a statement with `e` and its connection went on (see `refusedWhole`). */
export const markRefusedWhole = (e: unknown): void => {
  if (typeof e === "object" && e !== null) refusedWhole.add(e);
};

/** Whether the server refused a statement whole with `e` (`refusedWhole`; a Db that does not say: its severity is the English "ERROR"). */
export const wasRefusedWhole = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (refusedWhole.has(e) || (e as { severity?: unknown }).severity === "ERROR");

const LOST = "the connection was lost (a server restart or an administrator ended it): the operation may be retried";

const CANCEL_FIXES = {
  timeout:
    "the server cancelled the statement at its statement_timeout (set for the role, the database or the pool): raise it, or set it to 0 for the store's role",
  cancel: "the statement was cancelled on the server (pg_cancel_backend, or a client's cancel request)",
  unknown:
    "the server cancelled the statement: at its statement_timeout (set for the role, the database or the pool: raise it, or set it to 0 for the store's role), or at a cancel request (pg_cancel_backend)",
};

/**
 * SQLSTATEs of a connection the server ended or lost (the server's message
 * is in its own language: never read for this): an administrator's
 * pg_terminate_backend or a shutdown (57P01), a crash of another backend
 * (57P02), the database dropped (57P04), and class 08 (connection exception).
 */
const connectionLost = (code: string): boolean => ["57P01", "57P02", "57P04"].includes(code) || code.startsWith("08");

/**
 * Turns an error of `pg` or the network into a `store-io` FunctaiError that
 * says what to fix (FunctaiErrors pass through unchanged). Never shows a password.
 * A server's error is told by its SQLSTATE, never by its message: a server
 * whose lc_messages is not English words it otherwise.
 */
export function storeIo(e: unknown, doing: string, target: string): FunctaiError {
  if (e instanceof FunctaiError) return e;
  const err = e as { code?: string; message?: string; constraint?: unknown };
  const code = typeof err.code === "string" ? (damagedOnServer(err.code, err.constraint) ? DAMAGED : err.code) : "";
  const message = describeError(e).replace(/:\/\/([^:@/]*):[^@/]*@/g, "://$1:***@");
  let fix: string;
  if (FIXES[code]) fix = FIXES[code];
  else if (code === "57014") fix = CANCEL_FIXES[(typeof e === "object" && e !== null && cancelled.get(e)) || "unknown"];
  else if (connectionLost(code)) fix = LOST;
  // pg-pool's own error: never the server's message, and never a passing one
  else if (/Cannot use a pool after calling end/i.test(message))
    fix = "the pool was ended (pool.end()) while the store still used it: close the store first, then end the pool";
  else if (code === "ECONNREFUSED") fix = "the connection was refused: is PostgreSQL running and listening at that host and port?";
  // (a unix socket: ?host= names its directory, the port its file's name)
  else if (code === "ENOENT")
    fix = "no unix socket of that name: is PostgreSQL running, with that socket directory (?host=, e.g. /var/run/postgresql) and port?";
  else if (code === "ENOTFOUND" || code === "EAI_AGAIN") fix = "that host name does not resolve: fix the host in the connection string";
  else if (/timeout/i.test(message)) fix = "no answer in time: check the host, port and network (a firewall that drops packets looks like this)";
  // (pg's own words and Node's codes, never the server's)
  else if (/terminat|ECONNRESET|Connection terminated|closed/i.test(message + code)) fix = LOST;
  else if (/^the store is closed$/.test(message)) fix = "make a new store to go on";
  else fix = "see the server's message";
  return new FunctaiError("store-io", `PostgreSQL store (${target}): could not ${doing}: ${message} (${fix}).`, { cause: e });
}
