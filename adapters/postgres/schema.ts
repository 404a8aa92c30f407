import { FunctaiError } from "../../src/errors.js";
import type { Db } from "./db.js";
import { DAMAGED_STATE, FOREIGN_STATE, storeIo } from "./errors.js";

/**
 * The version of the tables this release writes; a later release migrates from it.
 *
 * @example
 * // the version a store's tables are at: SELECT value FROM functai.meta WHERE key = 'schema_version'
 * console.log(`this release writes tables of version ${SCHEMA_VERSION}`);
 */
export const SCHEMA_VERSION = 7;

/** Schema names: a lower-case SQL identifier (used unquoted in the channel name too). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,54}$/;

/** Throws `store-io` unless `schema` is a name the store can use. */
export function checkSchema(schema: unknown): asserts schema is string {
  // information_schema is the server's own, as pg_* are: its tables would go among the catalog's views (or be refused as a missing privilege)
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema) || schema.startsWith("pg_") || schema === "information_schema")
    throw new FunctaiError(
      "store-io",
      `PostgreSQL store: ${JSON.stringify(schema)} is not a schema name it can use: give 1–55 lower-case letters, digits or "_", starting with a letter or "_" (not "pg_", not information_schema).`,
    );
}

/** The channel appends notify on: one per schema. */
export const channelOf = (schema: string): string => `functai_${schema}`;

/**
 * The append as one function, so that one statement (one round trip, its
 * own transaction) does the compare-and-set on the length, the batch's row,
 * and the notification delivered on commit. `p_n` is the number of records
 * in `p_records` (the client counts them: the server does not parse the
 * JSON again to count). Returns the new length; -1 when the fence failed;
 * -2 - length on a length mismatch.
 *
 * Rows changed by hand are refused (DAMAGED_STATE, nothing written), never
 * written past or answered as something else: a length below 0 (-2 - length
 * would read as another length, or a committed append as a mismatch), and a
 * length that is not where the newest batch ends (a batch deleted: the
 * append would leave a hole; a length set back: it would write over batches
 * the length no longer counts). The newest batch is one probe of the
 * primary key's index, in the statement the append is anyway.
 *
 * One row per append (a batch: the records first…last as one JSON array, as
 * the client wrote them): one tuple and one index entry, not one per record.
 *
 * The fence (a held turn's records): the store's lock session still holds
 * its session key (a random pair only that session ever locks, so: that
 * session is still alive, and with it every turn lock it took) and the
 * turn's lock is still held. Each is a try of a shared transaction-level
 * lock, which fails at once against the exclusive session-level lock: no
 * scan of pg_locks (whose cost grows with every lock on the server, and
 * which takes every lock-manager partition while it reads).
 */
function appendFunction(schema: string): string {
  const s = `"${schema}"`;
  return `
DROP FUNCTION IF EXISTS ${s}.append(text, json, integer, integer, text);
CREATE OR REPLACE FUNCTION ${s}.append(p_conversation text, p_records json, p_expect integer, p_session_a integer, p_session_b integer, p_fence text, p_n integer)
RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  cur integer;
  newest integer;
  n integer := p_n;
BEGIN
  IF p_fence IS NOT NULL THEN
    IF pg_catalog.pg_try_advisory_xact_lock_shared(p_session_a, p_session_b) THEN RETURN -1; END IF; -- the session is gone
    IF pg_catalog.pg_try_advisory_xact_lock_shared(pg_catalog.hashtextextended(p_fence, 0)) THEN RETURN -1; END IF; -- the turn's lock is free
  END IF;
  IF n = 0 THEN
    SELECT coalesce(max(length), 0) INTO cur FROM ${s}.conversations WHERE id = p_conversation;
    IF cur < 0 THEN RAISE EXCEPTION 'functai: conversation % has a length of %; nothing was written', p_conversation, cur USING ERRCODE = '${DAMAGED_STATE}'; END IF;
    RETURN CASE WHEN p_expect IS NULL OR p_expect = cur THEN cur ELSE -2 - cur END;
  END IF;
  -- the compare-and-set and the row lock in one statement (a changed row is compared again at its newest version)
  FOR attempt IN 1..3 LOOP
    UPDATE ${s}.conversations SET length = length + n, updated = now()
      WHERE id = p_conversation AND (p_expect IS NULL OR length = p_expect) RETURNING length - n INTO cur;
    EXIT WHEN FOUND;
    SELECT length INTO cur FROM ${s}.conversations WHERE id = p_conversation;
    IF FOUND THEN
      IF cur < 0 THEN RAISE EXCEPTION 'functai: conversation % has a length of %; nothing was written', p_conversation, cur USING ERRCODE = '${DAMAGED_STATE}'; END IF;
      IF p_expect IS NOT NULL AND cur <> p_expect THEN RETURN -2 - cur; END IF; -- another length than expected
      cur := NULL;
      CONTINUE; -- a row another transaction committed after the UPDATE looked (a first append, a watch): update it
    END IF;
    IF p_expect IS NOT NULL AND p_expect <> 0 THEN RETURN -2; END IF;
    INSERT INTO ${s}.conversations (id, length) VALUES (p_conversation, n) ON CONFLICT (id) DO NOTHING;
    IF FOUND THEN cur := 0; EXIT; END IF;
    -- made meanwhile by another transaction: compare with it (cur is NULL again, as after every miss above)
  END LOOP;
  IF cur IS NULL THEN RAISE EXCEPTION 'functai: the row of conversation % kept changing under this append; nothing was written', p_conversation; END IF;
  -- the length must be where the newest batch ends (0: none); read under the row's lock, so no other append moves either meanwhile
  SELECT max(last) INTO newest FROM ${s}.batches WHERE conversation = p_conversation;
  IF cur <> coalesce(newest, 0) THEN
    RAISE EXCEPTION 'functai: conversation % has a length of % but its newest batch ends at %; nothing was written', p_conversation, cur, coalesce(newest, 0) USING ERRCODE = '${DAMAGED_STATE}';
  END IF;
  INSERT INTO ${s}.batches (conversation, last, first, records) VALUES (p_conversation, cur + n, cur + 1, p_records);
  -- only when a store waits on it: a NOTIFY serializes the commits of every notifying transaction (WAL flush included)
  IF EXISTS (SELECT 1 FROM ${s}.waiters WHERE conversation = p_conversation AND until > clock_timestamp()) THEN
    PERFORM pg_notify('${channelOf(schema)}', p_conversation || ' ' || (cur + n));
  END IF;
  RETURN cur + n;
END
$fn$;
-- version 4's signature, for a process of that release still running while another migrates (a rolling upgrade)
CREATE OR REPLACE FUNCTION ${s}.append(p_conversation text, p_records json, p_expect integer, p_session_a integer, p_session_b integer, p_fence text)
RETURNS integer LANGUAGE sql AS $fn$
  SELECT ${s}.append(p_conversation, p_records, p_expect, p_session_a, p_session_b, p_fence, json_array_length(p_records));
$fn$;`;
}

/**
 * A waiter says it waits (until a while after its timeout) and reads the
 * length, in one statement. FOR SHARE orders it with appends, which hold the
 * row FOR UPDATE: an append that committed first is in the length read; one
 * that commits after sees the waiter (its check runs once it has the row)
 * and notifies. So no wake-up is lost, and appends nobody waits on notify nobody.
 */
function watchFunction(schema: string): string {
  const s = `"${schema}"`;
  return `
CREATE OR REPLACE FUNCTION ${s}.watch(p_conversation text, p_token text, p_seconds float8)
RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  cur integer;
BEGIN
  INSERT INTO ${s}.conversations (id, length) VALUES (p_conversation, 0) ON CONFLICT (id) DO NOTHING;
  SELECT length INTO cur FROM ${s}.conversations WHERE id = p_conversation FOR SHARE;
  INSERT INTO ${s}.waiters (conversation, token, until) VALUES (p_conversation, p_token, clock_timestamp() + make_interval(secs => p_seconds + 5))
    ON CONFLICT (conversation, token) DO UPDATE SET until = EXCLUDED.until;
  RETURN cur;
END
$fn$;`;
}

/**
 * How long the first use's DDL waits for each lock another session holds
 * (the role's lock_timeout when shorter): a transaction left open on the
 * store's tables (a report, an administrator's LOCK, a pg_dump while a
 * migration replaces the records view) or on a schema of that name not
 * yet committed held the first use, and every call of the store behind it,
 * for as long as it stayed open; worse, a DDL waiting for a lock holds up
 * every other session's reads of what it would lock. Not the wait for the
 * schema's advisory lock: that is another store making or migrating the
 * tables (its own lock waits bounded by this), however long its migration
 * takes, and cut short it would fail every host's first use of a database
 * being migrated.
 */
const DDL_LOCK_MS = 10_000;

/**
 * Everything the store creates, version 7 (2 added the waiters; 3 fences by lock tries, not pg_locks; 4: an
 * append that finds a row committed after its UPDATE looked updates it, where 3 called it a conflict; 5: one row
 * per append in `batches`, and `records` a view of them, for the readers of a release before it; 6: the append
 * refuses a length below 0 or not where the newest batch ends, the tables unchanged; 7: the append's fence names
 * pg_catalog's hashtextextended, where a user's function of that name taking an integer was called instead; the append
 * and the watch of version 7 are made again, with their search_path pinned, where a schema's were made without: see
 * PINNED). Run as
 * one implicit transaction, with pg_catalog alone on its search_path (a user's function or operator is never what a
 * view or default binds to), under a transaction-level advisory lock, so that several processes using a fresh
 * database at once create it once; at READ COMMITTED whatever the role's default_transaction_isolation (at
 * REPEATABLE READ or SERIALIZABLE its snapshot, taken before the lock was granted, missed the schema the lock's
 * last holder made: CREATE SCHEMA failed "already exists"); each other lock is waited for DDL_LOCK_MS at most.
 * `marker` starts its text (a comment): how BLOCKERS finds its session.
 */
function ddl(schema: string, marker: string): string {
  const s = `"${schema}"`;
  return `${marker}
SET LOCAL search_path = pg_catalog, pg_temp;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SET LOCAL lock_timeout = 0;
SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('functai schema ' || ${quote(schema)}, 0));
SELECT pg_catalog.set_config('lock_timeout', CASE WHEN reset_val::bigint BETWEEN 1 AND ${DDL_LOCK_MS} THEN reset_val ELSE '${DDL_LOCK_MS}' END, true)
  FROM pg_catalog.pg_settings WHERE name = 'lock_timeout';
${foreignCheck(schema)}
DO $schema$ BEGIN
  -- made only when missing: CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database even where the schema was made
  -- beforehand for the store's role (as the refusal for a role without that privilege advises)
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ${quote(schema)}) THEN CREATE SCHEMA ${s}; END IF;
END $schema$;
CREATE TABLE IF NOT EXISTS ${s}.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.conversations (
  id text COLLATE "C" PRIMARY KEY,
  length integer NOT NULL,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${s}.batches (
  conversation text COLLATE "C" NOT NULL,
  last integer NOT NULL,
  first integer NOT NULL,
  records json NOT NULL,
  PRIMARY KEY (conversation, last)
);
DO $mig$ BEGIN
  -- a release before version 5 kept one row per record: each becomes a batch of one, and the table a view
  IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${quote(schema)} AND c.relname = 'records' AND c.relkind = 'r') THEN
    INSERT INTO ${s}.batches (conversation, last, first, records) SELECT conversation, seq, seq, json_build_array(record) FROM ${s}.records;
    DROP TABLE ${s}.records;
  END IF;
END $mig$;
CREATE OR REPLACE VIEW ${s}.records AS
  SELECT b.conversation, b.first + (t.ord - 1)::integer AS seq, t.value AS record
  FROM ${s}.batches b CROSS JOIN LATERAL json_array_elements(b.records) WITH ORDINALITY AS t(value, ord);
CREATE TABLE IF NOT EXISTS ${s}.waiters (
  conversation text COLLATE "C" NOT NULL,
  token text NOT NULL,
  until timestamptz NOT NULL,
  PRIMARY KEY (conversation, token)
);
${appendFunction(schema)}
${watchFunction(schema)}
INSERT INTO ${s}.meta (key, value) VALUES ('schema_version', '${SCHEMA_VERSION}') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE ${s}.meta.value::integer < EXCLUDED.value::integer;`;
}

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Refuses (FOREIGN_STATE, nothing changed) a schema without the store's
 * `meta` table that already holds a relation of a name the store makes: an
 * app's own schema (`{ schema: "public" }`). Made "if not exists", an app's
 * `conversations` table was taken for the store's, and an app's `records`
 * table for a release before version 5's: copied into `batches`, then
 * dropped. Every release made `meta` with the rest, in one transaction, so
 * a schema the store made has it. Run under the schema's advisory lock: a
 * process that made the tables meanwhile has committed them all.
 */
function foreignCheck(schema: string): string {
  return `
DO $foreign$ DECLARE found text; BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${quote(schema)} AND c.relname = 'meta') THEN
    SELECT pg_catalog.string_agg(c.relname::text, ', ' ORDER BY c.relname) INTO found FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${quote(schema)} AND c.relname IN ('conversations', 'batches', 'records', 'waiters');
    IF found IS NOT NULL THEN
      RAISE EXCEPTION 'functai: schema % already holds % but no meta table, so not as the store made them; nothing was changed', ${quote(schema)}, found USING ERRCODE = '${FOREIGN_STATE}';
    END IF;
  END IF;
END $foreign$;`;
}

/** The version a schema's meta row gives; one that is not a whole number is damage (store-io), never taken for a version it might be. */
function versionOf(value: unknown, schema: string, target: string): number {
  const version = typeof value === "string" && /^[0-9]{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isNaN(version))
    throw new FunctaiError(
      "store-io",
      `PostgreSQL store (${target}): schema "${schema}" gives its version as ${JSON.stringify(value)}, not a number: its tables were changed by hand; restore the row (SELECT value FROM "${schema}".meta WHERE key = 'schema_version') or use another schema.`,
    );
  return version;
}

/**
 * Whether a schema's append and watch run with pg_catalog alone on their
 * search_path (`SET search_path` on the function). Without it they ran with
 * the calling session's, and an operator of a user's or an extension's on it
 * that matches their arguments exactly (float8 + integer, text || integer)
 * was bound before pg_catalog's, which needs a cast: a waiter's row said it
 * waited until a time gone by, and an append notified with another payload,
 * so a wait was not woken until its timeout. Version 7's functions made
 * before this was pinned are made again (the version stays 7: a release of
 * version 7 runs the pinned ones as they are), by a role that may replace
 * them (their owner's): an app's role with only USAGE on a schema an owner
 * made goes on with them as they are, never fails its first use on DDL it
 * may not run.
 */
const PINNED = (schema: string): string => `NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = ${quote(schema)} AND ((p.proname = 'append' AND p.pronargs = 7) OR (p.proname = 'watch' AND p.pronargs = 3))
    AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false) AND pg_catalog.pg_has_role(p.proowner, 'USAGE'))`;

/**
 * Makes sure the schema's tables exist at this release's version: creates
 * them on first use; refuses (store-io) a schema a newer release wrote.
 */
export async function ensureSchema(db: Db, schema: string): Promise<void> {
  let version: number | null = null;
  let pinned = true;
  try {
    // asked first, never learnt from an error: a role with exit_on_error has the server end the session at any error
    const { rows: found } = await db.query(`SELECT pg_catalog.to_regclass('"${schema}".meta') IS NOT NULL AS present, ${PINNED(schema)} AS pinned`);
    pinned = found[0]?.["pinned"] !== false;
    if (found[0]?.["present"] === true) {
      const read = `SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`;
      // its lock wait bounded below the statement deadline: behind an ACCESS EXCLUSIVE lock on meta (a LOCK TABLE, VACUUM FULL or ALTER left open), it failed at that deadline as a network failure
      const { rows } = db.lockBounded ? await db.lockBounded(read, Math.min(DDL_LOCK_MS, db.lockWaitMs ?? DDL_LOCK_MS)) : await db.query(read);
      version = rows.length > 0 ? versionOf(rows[0]!["value"], schema, db.target) : null;
    }
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "55P03") throw await metaLocked(db, schema, e);
    if (code !== "42P01" && code !== "3F000") throw storeIo(e, `read the version of schema "${schema}"`, db.target); // not "no such table/schema" (dropped meanwhile)
  }
  if (version === null || version < SCHEMA_VERSION || (version === SCHEMA_VERSION && !pinned)) {
    // made here, or migrated: every statement of the DDL may run again (version 1 lacked the waiters, 2 to 5 had older appends, 1 to 4 a row per record)
    await make(db, schema);
    version = SCHEMA_VERSION;
  }
  if (version > SCHEMA_VERSION)
    throw new FunctaiError(
      "store-io",
      `PostgreSQL store (${db.target}): schema "${schema}" is at version ${version}, written by a newer functai; this one knows version ${SCHEMA_VERSION}: upgrade functai here, or use another schema.`,
    );
}

/** How often a first use's DDL still running asks who blocks it (what its error names if a lock is not granted in time). */
const BLOCKERS_EVERY_MS = 2_000;

/** What blockerText says of a session `b`, and which of the schema's (`$2`) relations it holds a lock on. */
const SESSION_COLUMNS = `b.pid, b.usename AS role, b.application_name AS app, b.state, b.xact_start AS since,
    (SELECT pg_catalog.string_agg(DISTINCT '"' || n.nspname || '".' || c.relname, ', ') FROM pg_catalog.pg_locks l
       JOIN pg_catalog.pg_class c ON c.oid = l.relation JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       WHERE l.pid = b.pid AND l.granted AND n.nspname = $2) AS holds`;

/** The sessions that hold the one lock a read waits for on the relation `$1` (ACCESS EXCLUSIVE), as BLOCKERS. */
const EXCLUSIVE_HOLDERS = `SELECT ${SESSION_COLUMNS}
  FROM pg_catalog.pg_stat_activity b
  WHERE b.pid IN (SELECT l.pid FROM pg_catalog.pg_locks l WHERE l.relation = pg_catalog.to_regclass($1) AND l.granted AND l.mode = 'AccessExclusiveLock')
  ORDER BY b.pid`;

/**
 * The error of a version read the server refused for a lock not granted in
 * time (55P03): `store-io` naming the sessions that hold meta's ACCESS
 * EXCLUSIVE lock (looked up once, best effort), never the network wording of
 * a statement dropped at its deadline.
 */
async function metaLocked(db: Db, schema: string, e: unknown): Promise<FunctaiError> {
  const rows = await db.query(EXCLUSIVE_HOLDERS, [`"${schema}".meta`, schema], undefined, BLOCKERS_EVERY_MS).then(
    (r) => r.rows,
    () => [],
  );
  return new FunctaiError(
    "store-io",
    `PostgreSQL store (${db.target}): could not read the version of schema "${schema}": another session held a lock on its meta table for longer than the store waits for one (the role's lock_timeout, or at most ${DDL_LOCK_MS / 1000} s, below the statement deadline): ${whoBlocks(rows)}. Nothing was changed; the store's next call tries again.`,
    { cause: e },
  );
}

/** The sessions that held a lock, in words, and what to do about them. */
const whoBlocks = (seen: Record<string, unknown>[]): string =>
  seen.length > 0
    ? `${seen.map(blockerText).join("; ")}: end its transaction (COMMIT or ROLLBACK there, or SELECT pg_terminate_backend(pid))`
    : "find it (SELECT pid, state, xact_start FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'; a pg_dump; a migration of your own) and end its transaction";

/**
 * The sessions that block the DDL whose text starts with `$1` while it waits
 * for a lock other than the schema's advisory one (another store's DDL,
 * waited for), and which of the schema's (`$2`) relations each holds a lock
 * on. A role sees another role's state and times only with
 * pg_read_all_stats: they are null then.
 */
const BLOCKERS = `SELECT ${SESSION_COLUMNS}
  FROM pg_catalog.pg_stat_activity w CROSS JOIN LATERAL pg_catalog.unnest(pg_catalog.pg_blocking_pids(w.pid)) AS p(pid)
  JOIN pg_catalog.pg_stat_activity b ON b.pid = p.pid
  WHERE w.query LIKE $1 AND w.pid <> pg_catalog.pg_backend_pid() AND w.wait_event_type = 'Lock' AND w.wait_event <> 'advisory'
  ORDER BY b.pid`;

/** A session that blocked the DDL, in words (what pg_stat_activity let the role see). */
function blockerText(row: Record<string, unknown>): string {
  const since = row["since"] instanceof Date ? ` since ${row["since"].toISOString()}` : "";
  const holds = row["holds"] ? `, holding locks on ${String(row["holds"])}` : "";
  return `pid ${String(row["pid"])} (role ${String(row["role"])}, application ${JSON.stringify(row["app"] ?? "")}, ${row["state"] ? String(row["state"]) : "state not shown to this role"}${since}${holds})`;
}

/**
 * Runs the DDL. While it runs longer than BLOCKERS_EVERY_MS, the sessions
 * that block it are looked up (on another connection: a database of one
 * connection, in process, has no other session), so that a lock not granted
 * in time (DDL_LOCK_MS) fails `store-io` naming them; nothing was changed
 * (one transaction), and the store's next call tries again.
 */
async function make(db: Db, schema: string): Promise<void> {
  const marker = `/* functai first use ${Math.random().toString(36).slice(2, 12)} */`;
  let seen: Record<string, unknown>[] = [];
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = (): void => {
    timer = setTimeout(() => {
      db.query(BLOCKERS, [`${marker}%`, schema], undefined, BLOCKERS_EVERY_MS).then(
        ({ rows }) => {
          if (rows.length > 0) seen = rows;
          if (!done) look();
        },
        () => !done && look(), // (best effort: the DDL's own outcome is what counts)
      );
    }, BLOCKERS_EVERY_MS);
    (timer as { unref?: () => void }).unref?.();
  };
  if (db.session) look();
  try {
    await db.exec(ddl(schema, marker));
  } catch (e) {
    if ((e as { code?: unknown }).code !== "55P03") throw storeIo(e, `create its tables in schema "${schema}"`, db.target);
    const who = whoBlocks(seen);
    throw new FunctaiError(
      "store-io",
      `PostgreSQL store (${db.target}): could not create its tables in schema "${schema}": another session held a lock they need for longer than ${DDL_LOCK_MS / 1000} s (or the role's shorter lock_timeout): ${who}. Nothing was changed; the store's next call tries again.`,
      { cause: e },
    );
  } finally {
    done = true;
    clearTimeout(timer);
  }
}
