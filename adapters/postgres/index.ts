import type pg from "pg";
import { FunctaiError } from "../../src/errors.js";
import { namedKeys, unknownKeys } from "../../src/runtime/values.js";
import { connectionUrl } from "./errors.js";
import { STATEMENT_TIMEOUT_MS, pgDb } from "./pg-db.js";
import { storeOn, type PostgresStore } from "./store.js";

export type { PostgresStore } from "./store.js";
export { SCHEMA_VERSION } from "./schema.js";

/**
 * Where the store connects: a URL (the store makes and ends its pool) or your own `pg.Pool` (yours to end).
 *
 * @example
 * const byUrl: PostgresConnection = { connectionString: "postgres://desk:secret@db:5432/desk" };
 * const byPool: PostgresConnection = { pool: new pg.Pool({ max: 10 }) }; // yours to end
 * const store = postgresStore(byPool);
 */
export type PostgresConnection = { connectionString: string } | { pool: pg.Pool };

/**
 * The Postgres store's options: the schema its tables live in.
 *
 * @example
 * const options: PostgresStoreOptions = { schema: "desk_chats" };
 * const store = postgresStore({ connectionString: process.env.DATABASE_URL! }, options);
 */
export interface PostgresStoreOptions {
  /** The schema that holds the store's tables (made on first use): 1–55 lower-case letters, digits or "_". Default "functai". */
  schema?: string;
  /**
   * How long a statement's answer is waited for before its connection is
   * dropped and the call fails `store-io` (a connection left half-open by the
   * network never answers). Default 30 000 ms; a lock session's statements
   * wait 10 s at most.
   */
  statementTimeoutMs?: number;
}

/**
 * Whether `value` is a pg.Client, or a client checked out of a pool: it has
 * a pool's methods, but its connect hands out no client, and its own
 * 'connect' event carries none (taken for a pool, the store's listener
 * threw inside the event: an uncaught exception that ended the process).
 */
const isClient = (value: object): boolean =>
  typeof (value as Record<string, unknown>)["release"] === "function" ||
  typeof (value as Record<string, unknown>)["connectionParameters"] === "object";

/** Whether `pool` has what the store uses of a pg.Pool (and is not a client). */
const isPool = (pool: unknown): pool is pg.Pool =>
  typeof pool === "object" &&
  pool !== null &&
  ["connect", "on", "off", "query"].every((m) => typeof (pool as Record<string, unknown>)[m] === "function") &&
  !isClient(pool);

/** What a wrong argument is, never its value (a URL given in the wrong place holds a password). */
const kindOf = (value: unknown): string =>
  value === null
    ? "null"
    : typeof value !== "object"
      ? `a ${typeof value}`
      : isClient(value)
        ? "a client (pg.Client, or one checked out of a pool): give the pool itself"
        : "an object without connect, on, off and query";

/** Throws `store-io` unless `url` is a PostgreSQL URL. */
function checkUrl(url: unknown): asserts url is string {
  let ok = false;
  try {
    ok = typeof url === "string" && ["postgres:", "postgresql:"].includes(connectionUrl(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new FunctaiError(
      "store-io",
      `PostgreSQL store: the connection string must be a URL such as postgres://user:password@host:5432/database (got ${typeof url === "string" ? `a ${url.length}-character string that is not one` : typeof url}).`,
    );
}

/** The keys each argument may have: any other (a typo, a schema in the wrong argument, pg's own options) would be left out without a word. */
const CONNECTION_KEYS = ["connectionString", "pool"];
const OPTION_KEYS = ["schema", "statementTimeoutMs"];

/** Throws `store-io` naming the keys of `given` that are not `known` (the names only: a value may hold a password). */
function checkKeys(given: object, known: readonly string[], what: string, hint: (extra: string[]) => string): void {
  const extra = unknownKeys(Object.keys(given), known);
  if (extra.length > 0)
    throw new FunctaiError("store-io", `PostgreSQL store: ${what} has ${namedKeys(extra)}, which it does not take (${hint(extra)}).`);
}

/**
 * A store on PostgreSQL, for many hosts on one database: any app server may
 * answer, resume or serve any turn. Tables are made on first use in their
 * own schema; an append is one transaction (compare-and-set on the length,
 * the rows, a notification on commit); a running turn holds a session-level
 * advisory lock, so a host that dies or loses its connection leaves its
 * turn `interrupted` at once. Needs the `pg` package (without it, the first
 * use fails with `package-missing`).
 *
 * @example
 * ```ts
 * import { postgresStore } from "functai/postgres";
 * const store = postgresStore({ connectionString: "postgres://app:secret@db:5432/app" }, { schema: "functai" });
 * await store.append("sam", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]); // 1
 * await store.close();
 * ```
 */
export function postgresStore(connection: PostgresConnection, options: PostgresStoreOptions = {}): PostgresStore {
  if (typeof connection !== "object" || connection === null || !("pool" in connection || "connectionString" in connection))
    throw new FunctaiError("store-io", 'PostgreSQL store: give { connectionString: "postgres://…" } or { pool } (a pg.Pool).');
  // both: the pool was used, and the URL (another server's?) left out without a word
  if ("pool" in connection && "connectionString" in connection)
    throw new FunctaiError(
      "store-io",
      "PostgreSQL store: give one of { connectionString } and { pool }, not both (a pool of yours connects where its own options say).",
    );
  checkKeys(connection, CONNECTION_KEYS, "the connection", (extra) =>
    extra.includes("schema") || extra.includes("statementTimeoutMs")
      ? 'the schema and statementTimeoutMs go in the second argument: postgresStore({ connectionString }, { schema: "functai" })'
      : "it takes { connectionString } or { pool }: pg's own options go to a pg.Pool of yours, given as { pool }",
  );
  if (!("pool" in connection)) checkUrl(connection.connectionString);
  // a pool that is not one failed only at the first use, as a TypeError blamed on "the server's message"
  else if (!isPool(connection.pool))
    throw new FunctaiError("store-io", `PostgreSQL store: { pool } must be a pg.Pool (new pg.Pool(…)), not ${kindOf(connection.pool)}.`);
  // options that are not an object would be read as none: a schema given there would be left out without a word
  if (typeof options !== "object" || options === null)
    throw new FunctaiError("store-io", `PostgreSQL store: the options must be an object such as { schema: "functai" }, not ${kindOf(options)}.`);
  checkKeys(options, OPTION_KEYS, "the options", () => "the options are schema and statementTimeoutMs");
  const { statementTimeoutMs = STATEMENT_TIMEOUT_MS } = options;
  // (setTimeout's own limit is 2^31 - 1 ms: a longer one would fire at once)
  if (typeof statementTimeoutMs !== "number" || !(statementTimeoutMs > 0) || statementTimeoutMs > 2 ** 31 - 1)
    throw new FunctaiError(
      "store-io",
      `PostgreSQL store: statementTimeoutMs is a number of milliseconds above 0 (at most 2147483647), not ${JSON.stringify(statementTimeoutMs) ?? String(statementTimeoutMs)}.`,
    );
  return storeOn(pgDb(connection, statementTimeoutMs), options);
}
