import { ConversationError } from "../../src/errors.js";
import { digest } from "../../src/lm/digest.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { checkAfter, checkConversationId, checkExpect, checkRecords, checkTimeout, checkVisit, isDurable, recordJson, storeConflict } from "../../src/store/checks.js";
import { isConversationId, type Store } from "../../src/store/types.js";
import { called } from "./called.js";
import type { Db } from "./db.js";
import { damaged, storeIo } from "./errors.js";
import { appendGroup, type GroupedAppend } from "./group.js";
import { Grouped, NotSent, oneOrMany } from "./grouped.js";
import { AdvisoryLiveness } from "./liveness.js";
import { channelOf, checkSchema, ensureSchema } from "./schema.js";
import { Wakeups } from "./wake.js";

/**
 * A store on PostgreSQL: `close` is always there (it ends the connections the store opened).
 *
 * @example
 * const store: PostgresStore = postgresStore({ connectionString: process.env.DATABASE_URL! });
 * const chat = desk.conversation("sam", { store });
 * await store.close(); // ends the pool it made
 */
export type PostgresStore = Store & {
  readonly durability: "disk";
  /** Refuses calls from now on, lets those under way settle (a wait resolves false), then ends the connections the store opened (a pool given to it is left to its owner). */
  close(): Promise<void>;
};

/**
 * What makes an append's own transaction commit without waiting for its WAL
 * flush (`durable: false`): visible to every session at commit, and durable
 * once any later commit's flush is done (the WAL is flushed in order), or
 * within the WAL writer's delay. A column of the statement itself, so
 * still one round trip; set for this transaction only.
 */
const RELAXED = `, pg_catalog.set_config('synchronous_commit', 'off', true) AS relaxed`;

/**
 * What makes a durable append's transaction wait for its WAL flush where the
 * role, the database or the connection turned `synchronous_commit` off
 * (PostgreSQL's default, `on`, in its place, for this transaction only); any
 * other setting flushes already, and is left as it is.
 */
const DURABLE = `, CASE WHEN pg_catalog.current_setting('synchronous_commit') = 'off' THEN pg_catalog.set_config('synchronous_commit', 'on', true) END AS durable`;

/**
 * A column that bounds the statement's waits for locks (`$n`, in ms) where
 * the role sets no lock_timeout (its own is kept): a conversation's row or
 * the batches table locked by another session's open transaction (an
 * administrator's UPDATE or LOCK TABLE, VACUUM FULL, a report's FOR UPDATE)
 * held the append until the store's statement deadline dropped it, outcome
 * unknown, and the server committed it once the lock was let go, after its
 * caller was told it failed. Bounded below that deadline, the server refuses
 * it (55P03), nothing written. First of the columns: the function takes its
 * locks when it runs, after it (the statement itself locks no table).
 */
const BOUNDED = (n: number) =>
  `CASE WHEN pg_catalog.current_setting('lock_timeout') = '0' THEN pg_catalog.set_config('lock_timeout', $${n}, true) END AS bounded, `;

/** The append: one statement, prepared once per connection (it is most of what a turn sends). */
const APPEND = (s: string, relaxed: boolean) =>
  `SELECT ${BOUNDED(8)}${s}.append($1, $2::json, $3, $4, $5, $6, $7) AS length${relaxed ? RELAXED : DURABLE}`;

/**
 * Several appends as one statement (group.ts): the same function on each, in
 * the order given, in one transaction. `$1` is a JSON array of
 * `[conversation, expect, session_a, session_b, fence, count]`, `$2` one of
 * their records as the client wrote them, in the same order. Apart: an
 * operator such as `->` unescapes every string of the element it takes
 * apart, and refuses a NUL ("\u0000") or a lone surrogate, which a json
 * value keeps (each group holding one was refused, and its appends sent
 * again one by one); json_array_elements keeps each element's text, and
 * ROWS FROM pairs the two arrays' elements in order.
 */
const APPEND_MANY = (s: string, relaxed: boolean) =>
  `SELECT ${BOUNDED(3)}${s}.append(t.a->>0, t.records, (t.a->>1)::int4, (t.a->>2)::int4, (t.a->>3)::int4, t.a->>4, (t.a->>5)::int4) AS length${relaxed ? RELAXED : DURABLE}
   FROM ROWS FROM (json_array_elements($1::json), json_array_elements($2::json)) WITH ORDINALITY AS t(a, records, ord) ORDER BY t.ord`;

/** The arguments of APPEND_MANY: each append's records go in as they are (already JSON), the rest as JSON values. */
const manyArguments = (items: readonly GroupedAppend[]): [string, string] => [
  `[${items
    .map(
      (a) =>
        `[${JSON.stringify(a.conversation)},${a.expect ?? "null"},${a.fence?.session[0] ?? "null"},${a.fence?.session[1] ?? "null"},${a.fence ? JSON.stringify(a.fence.text) : "null"},${a.count}]`,
    )
    .join(",")}]`,
  `[${items.map((a) => a.json).join(",")}]`,
];

/**
 * APPEND_MANY's arguments, unless they are past `limit` bytes of UTF-8
 * together: NotSent then (each append goes alone). Each batch is checked
 * alone (checkBatchSize), but two of 570 MB out at once made one message
 * of 1.14 GB, which the server dropped the connection for after reading
 * it: both appends failed as a lost connection. Counted only when they
 * could be past it (bytesPastLimit). Exported for its test (not from the package).
 */
export function groupedArguments(items: readonly GroupedAppend[], limit = MAX_BATCH_BYTES): [string, string] {
  const args = manyArguments(items);
  if ((args[0].length + args[1].length) * 3 > limit) {
    const bytes = (bytesPastLimit(args[0], 0) ?? 0) + (bytesPastLimit(args[1], 0) ?? 0);
    if (bytes > limit)
      throw new NotSent(new Error(`the appends together are ${bytes} bytes of UTF-8, more than PostgreSQL takes in one message (${limit})`));
  }
  return args;
}

/**
 * Append statements a store has out at once; appends that come meanwhile go
 * together in the next (group.ts). Two: a second conversation's append does
 * not wait for the first's commit; with 25 turns at once in each of 8
 * processes, 1 and 2 gave the same throughput (bench/postgres.ts, concurrent).
 */
const APPEND_LANES = 2;

/**
 * Several reads as one statement (grouped.ts): `$1` is a JSON array of
 * `[conversation, after, limit]` (limit null: every batch after `after`);
 * each row says which read it answers (`ord`, from 1). As READ: each read
 * has the conversation's length on its rows, and one row with no batch when
 * it has none.
 */
const READ_MANY = (s: string) =>
  `SELECT t.ord, c.length, b.first, b.last, b.records::text AS records
   FROM json_array_elements($1::json) WITH ORDINALITY AS t(a, ord)
   LEFT JOIN ${s}.conversations c ON c.id = t.a->>0
   LEFT JOIN LATERAL (SELECT first, last, records FROM ${s}.batches
     WHERE conversation = t.a->>0 AND last > (t.a->>1)::int4 ORDER BY last LIMIT (t.a->>2)::int4) b ON true
   ORDER BY t.ord, b.last`;

/**
 * One read of batch rows (a conversation's after `$2`, at most `$3`; a null
 * limit is none): prepared once per connection, as the append is (a turn
 * starts with one). Each row has the conversation's length too (null: it
 * has no row), read in the same snapshot as the batches, so `page` can
 * tell rows that disagree with it; with no batch, one row with none.
 * No outer ORDER BY (a second sort of rows the lateral already sorted):
 * `pages` puts them in order.
 */
const READ = (s: string) =>
  `SELECT c.length, b.first, b.last, b.records::text AS records
   FROM (SELECT $1::text AS id) t
   LEFT JOIN ${s}.conversations c ON c.id = t.id
   LEFT JOIN LATERAL (SELECT first, last, records FROM ${s}.batches WHERE conversation = t.id AND last > $2 ORDER BY last LIMIT $3) b ON true`;

/**
 * The name a statement of `schema` is prepared under. PostgreSQL keeps 63
 * bytes of a name, so two longer names that share those were one statement
 * to it ("already exists": stores on one pool, whose long schema names
 * share a beginning); a name that would be longer names the schema by its
 * digest ("#": never in a schema name, so never another schema's short name).
 */
const statementName = (kind: string, schema: string): string => {
  const name = `functai.${kind}.${schema}`;
  return name.length <= 63 ? name : `functai.${kind}#${digest(schema)}`;
};

/** BOUNDED's wait for a lock where the `Db` sets none (its statements have no deadline of their own). */
const LOCK_WAIT_MS = 10_000;

/** Read statements a store has out at once (as APPEND_LANES). */
const READ_LANES = 2;

/** One read of batch rows: a conversation's after `after`, at most `limit` (null: all). */
interface PageAsk {
  conversation: string;
  after: number;
  limit: number | null;
}

type Row = Record<string, unknown>;

/** What a read of batch rows found: the conversation's length (null: it has no row), and its batch rows in order. */
interface Batches {
  length: unknown;
  rows: Row[];
}

/** What `page` gives: the records read, how many batch rows held them, and the conversation's length read with them. */
interface PageRead {
  records: ConversationRecord[];
  batches: number;
  length: number;
  /** The batches' JSON text, in UTF-16 code units (what the page took in). */
  size: number;
}

/** Adds a row of READ or READ_MANY to `into`: its length, and its batch if it has one (a row with none stands for a read that found none). */
const gather = (into: Batches, row: Row): void => {
  into.length = row["length"];
  if (row["first"] !== null) into.rows.push(row);
};

/** The largest seq (and length) the tables hold: PostgreSQL's `integer`. */
const MAX_SEQ = 2 ** 31 - 1;

/** Batch rows per page when reading a long conversation (at most). */
const PAGE = 500;

/**
 * A scan's first page, in batch rows, and the text it aims to take in per
 * page after it: pages of batches of unknown size start small, and the next
 * holds as many batches as the last ones' size says fit (a tool output of
 * a megabyte a batch is not fetched 500 at once).
 */
const SCAN_FIRST_PAGE = 16;
const SCAN_PAGE_SIZE = 4 * 1024 * 1024;

/**
 * How long taking a waiter's row away may take: it is best effort (a row left
 * behind runs out by itself), and `close` waits for it, so a network that
 * stopped answering holds a closing host this long, not the whole
 * statement timeout (30 s by default, a deploy's whole grace period).
 */
const UNWATCH_MS = 3_000;

/** Conversations per page when listing them or reading their lengths (small rows: an id and a length). */
const CONVERSATION_PAGE = 1_000;

/**
 * Adds to `into` the records of one batch row after `after`, each with its
 * seq (first…last), and returns the seq the next batch must start at. A row
 * that does not start at `next` (a gap; the first row read only has to hold
 * `next`, its last being above `after`), or is not an array of
 * `last - first + 1` plain objects, is refused (store-io), never read as
 * something else.
 */
function unbatch(
  conversation: string,
  row: Record<string, unknown>,
  after: number,
  next: { seq: number; firstRow: boolean },
  into: ConversationRecord[],
): number {
  const first = Number(row["first"]);
  const last = Number(row["last"]);
  // (a row from seq 0 or below is none this store wrote: read from `after`, its first records would be left out unsaid)
  if (first < 1 || (next.firstRow ? first > next.seq : first !== next.seq))
    throw damaged(`the records of ${conversation} skip from ${next.seq - 1} to a batch of ${first}…${last}`);
  const records: unknown = JSON.parse(String(row["records"]));
  if (!Array.isArray(records) || records.length !== last - first + 1)
    throw damaged(`the batch of records ${first}…${last} of ${conversation} does not hold ${last - first + 1} records`);
  for (let i = Math.max(0, after - first + 1); i < records.length; i++) {
    const record: unknown = records[i];
    if (typeof record !== "object" || record === null || Array.isArray(record))
      throw damaged(`record ${first + i} of ${conversation} is not an object`);
    (record as Record<string, unknown>)["seq"] = first + i;
    into.push(record as ConversationRecord);
  }
  return last + 1;
}

/**
 * A conversation's length as read (null: it has no row) when it is one;
 * a length below 0, or that is not a whole number, is damage (store-io),
 * never answered as a length or compared as one.
 */
function lengthRead(conversation: string, value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const length = Number(value);
  if (!Number.isSafeInteger(length) || length < 0) throw damaged(`the length of ${conversation} is ${String(value)}, not a count of records`);
  return length;
}

/**
 * Checks one read's batch rows against the conversation's length (unbatch
 * checks them against each other): batches with no conversation row, or a
 * read to the end (`toEnd`) that stops short of the length (a batch lost),
 * are refused (store-io), never read as a shorter conversation. `end` is
 * the last seq read (`after` when there was none). Batches beyond the length
 * are read as they are (contract-pglite reads what lies after a gap); the
 * next append refuses them (schema.ts).
 */
function checkAgainstLength(conversation: string, length: number | null, batches: number, end: number, toEnd: boolean): void {
  if (length === null) {
    if (batches > 0) throw damaged(`${conversation} has batches of records but no row in conversations (its length)`);
    return;
  }
  if (toEnd && end < length) throw damaged(`the records of ${conversation} stop at ${end}, short of its length of ${length}`);
}

/**
 * The most UTF-8 a batch's JSON may be: PostgreSQL takes a value, and a
 * message, of 1 GB less a byte at most (its MaxAllocSize), less room for the
 * statement's other arguments. Past it, the server dropped the connection
 * after reading the whole message (a minute and more), and the append failed
 * as a lost connection, "may be retried", which it never can be.
 */
const MAX_BATCH_BYTES = 2 ** 30 - 1 - 64 * 1024;

/** UTF-16 units encoded at a time when counting UTF-8 bytes (a little memory, whatever the text's size). */
const COUNT_CHUNK = 1 << 20;

/**
 * `text`'s length in UTF-8 bytes when it is more than `limit`, else null:
 * counted only for a text that could be (a UTF-16 unit is 3 bytes at most),
 * a chunk at a time (a copy of a gigabyte is not made to count it).
 * Exported for its test (not from the package).
 */
export function bytesPastLimit(text: string, limit = MAX_BATCH_BYTES): number | null {
  if (text.length * 3 <= limit) return null;
  const encoder = new TextEncoder();
  const into = new Uint8Array((COUNT_CHUNK + 1) * 3);
  let bytes = 0;
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + COUNT_CHUNK, text.length);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++; // (a surrogate pair stays whole: 4 bytes, not two replacement characters)
    bytes += encoder.encodeInto(text.slice(at, end), into).written;
    at = end;
  }
  return bytes > limit ? bytes : null;
}

/** Throws `store-io` (nothing sent) when a batch's JSON is more than PostgreSQL takes as one value. */
function checkBatchSize(conversation: string, json: string, target: string): void {
  const bytes = bytesPastLimit(json);
  if (bytes !== null)
    throw new ConversationError(
      "store-io",
      `PostgreSQL store (${target}): could not append to ${conversation}: its records are ${(bytes / 2 ** 20).toFixed(0)} MB as UTF-8 JSON, more than PostgreSQL takes as one value (1 GB); nothing was written. Keep an output that large elsewhere (a file, an object store) and record where it is.`,
    );
}

/** A batch's records as one JSON array, each checked as every store checks it (recordJson: a JSON object, or input-invalid). */
const batchJson = (conversation: string, records: readonly object[]): string =>
  `[${records.map((r, i) => recordJson(conversation, r, i)).join(",")}]`;

/**
 * The Postgres store on any `Db` (pg's pool, or PostgreSQL in process).
 * Tables are made on first use; liveness exists where the `Db` opens
 * sessions of its own.
 */
export function storeOn(db: Db, options: { schema?: string } = {}): PostgresStore {
  // (only a schema left out is the default: a null one, from a lookup that found nothing, is refused, never written into "functai")
  const schema = options.schema === undefined ? "functai" : options.schema;
  checkSchema(schema);
  const s = `"${schema}"`;
  const named = (kind: string) => statementName(kind, schema);
  const names = {
    read: named("read"),
    readMany: named("read_many"),
    append: [named("append"), named("append_relaxed")],
    appendMany: [named("append_many"), named("append_many_relaxed")],
  } as const;
  /** How long an append waits for a lock (BOUNDED), as a GUC value in ms. */
  const lockWait = String(db.lockWaitMs ?? LOCK_WAIT_MS);
  let ready: Promise<void> | null = null;
  /** The tables were found or made (every use after that goes straight to its statement). */
  let made = false;
  /** The connections are being ended (once the calls under way at `close` settled): nothing more is sent. */
  let closed = false;

  const closedError = (doing: string) =>
    new ConversationError("store-io", `PostgreSQL store (${db.target}): could not ${doing}: the store is closed.`);

  /** `fn`'s outcome, a failure as `store-io` saying what was being done. */
  const doingIt = <T>(doing: string, fn: () => Promise<T>): Promise<T> =>
    called(fn).catch((e: unknown) => {
      throw storeIo(e, doing, db.target);
    });

  /** Runs `fn` once the tables exist (with no wait once they do); a failed first use is tried again next time. */
  const use = <T>(doing: string, fn: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(closedError(doing));
    if (made) return doingIt(doing, fn);
    if (ready === null) {
      const making = ensureSchema(db, schema);
      ready = making;
      making.then(
        () => {
          if (ready === making) made = true;
        },
        () => {
          if (ready === making) ready = null;
        },
      );
    }
    return ready.then(() => doingIt(doing, fn));
  };

  const lengthOf = (conversation: string): Promise<number> =>
    use(`read the length of ${conversation}`, async () => {
      const { rows } = await db.query(`SELECT length FROM ${s}.conversations WHERE id = $1`, [conversation]);
      return rows.length > 0 ? (lengthRead(conversation, rows[0]!["length"]) ?? 0) : 0;
    });

  /** Batch rows of one conversation after `after`, at most `limit` of them, with its length; the reads that come while two are out go together. */
  const pages = new Grouped<PageAsk, Batches>(
    READ_LANES,
    oneOrMany({
      one: async ({ conversation, after, limit }) => {
        const found: Batches = { length: null, rows: [] };
        for (const row of (await db.query(READ(s), [conversation, after, limit], names.read)).rows) gather(found, row);
        found.rows.sort((a, b) => Number(a["last"]) - Number(b["last"]));
        return found;
      },
      many: async (asks) => {
        const { rows } = await db.query(READ_MANY(s), [JSON.stringify(asks.map((a) => [a.conversation, a.after, a.limit]))], names.readMany);
        const each: Batches[] = asks.map(() => ({ length: null, rows: [] }));
        for (const row of rows) {
          const at = Number(row["ord"]) - 1;
          if (!(at >= 0 && at < each.length)) throw new Error(`a grouped read answered a row for read ${at + 1} of ${each.length}`);
          gather(each[at]!, row);
        }
        return each;
      },
    }),
  );

  /**
   * The records after `after` from at most `limit` batches, how many batches
   * were read (a short page is the last), and the conversation's length
   * (read with them: a page that reads to the end ends at it).
   */
  const page = (conversation: string, after: number, limit: number | null): Promise<PageRead> =>
    use(`read ${conversation}`, async () => {
      const found = await pages.run({ conversation, after, limit });
      const length = lengthRead(conversation, found.length);
      const records: ConversationRecord[] = [];
      let next = after + 1;
      let size = 0;
      for (const [i, row] of found.rows.entries()) {
        size += typeof row["records"] === "string" ? row["records"].length : 0;
        next = unbatch(conversation, row, after, { seq: next, firstRow: i === 0 }, records);
      }
      const batches = found.rows.length;
      checkAgainstLength(conversation, length, batches, next - 1, limit === null || batches < limit);
      return { records, batches, length: length ?? 0, size };
    });
  /** `after` as a seq the tables can compare: one beyond the largest a conversation can hold reads nothing (never an out-of-range error). */
  const afterOf = (after: unknown): number => (typeof after === "number" && after > 0 ? Math.min(Math.floor(after), MAX_SEQ) : 0);

  const wakeups = new Wakeups(db, channelOf(schema), {
    // (a page of no batches: the lengths that the wake-ups of many waits read at once go together, as reads do)
    lengthOf: (conversation) =>
      use(
        `read the length of ${conversation}`,
        async () => lengthRead(conversation, (await pages.run({ conversation, after: MAX_SEQ, limit: 0 })).length) ?? 0,
      ),
    watch: (conversation, token, seconds) =>
      use(`wait on ${conversation}`, async () => {
        // its lock waits bounded as an append's (BOUNDED): behind a conversation's row locked by an open transaction it failed at the statement deadline, as a network failure
        const { rows } = await db.query(`SELECT ${BOUNDED(4)}${s}.watch($1, $2, $3::float8) AS length`, [conversation, token, seconds, lockWait]);
        return lengthRead(conversation, rows[0]!["length"]) ?? 0;
      }),
    unwatch: (conversation, token) =>
      use(`stop waiting on ${conversation}`, () =>
        // with the rows of waits that ran out without being taken away (a host that died waiting, an unwatch lost to a dropped connection), or the table only grows
        db.query(
          `DELETE FROM ${s}.waiters WHERE conversation = $1 AND (token = $2 OR until < clock_timestamp())`,
          [conversation, token],
          undefined,
          UNWATCH_MS,
        ),
      ).then(
        () => undefined,
        () => undefined, // it runs out by itself
      ),
  });
  const advisory = db.session ? new AdvisoryLiveness({ ...db, session: db.session.bind(db) }, schema, checkConversationId) : null;

  const appends = appendGroup(
    {
      one: async (a) => {
        const values = [a.conversation, a.json, a.expect, a.fence?.session[0] ?? null, a.fence?.session[1] ?? null, a.fence?.text ?? null, a.count];
        const relaxed = a.relaxed === true;
        const { rows } = await db.query(APPEND(s, relaxed), [...values, lockWait], names.append[relaxed ? 1 : 0]);
        return Number(rows[0]!["length"]);
      },
      many: async (items) => {
        // relaxed only when each is: one that must be durable waits for the flush of the whole statement
        const relaxed = items.every((a) => a.relaxed === true);
        let args: [string, string];
        try {
          args = groupedArguments(items);
        } catch (e) {
          throw e instanceof NotSent ? e : new NotSent(e); // (each goes alone)
        }
        const { rows } = await db.query(APPEND_MANY(s, relaxed), [...args, lockWait], names.appendMany[relaxed ? 1 : 0]);
        return rows.map((row) => Number(row["length"]));
      },
    },
    APPEND_LANES,
  );
  const appendOnce = (item: GroupedAppend) => use(`append to ${item.conversation}`, () => appends.run(item));

  const append: Store["append"] = async (conversation, records, opts) => {
    checkConversationId(conversation);
    const batch = checkRecords(conversation, records); // (the batch as it is now)
    const json = batchJson(conversation, batch); // a record that is not a JSON object fails here, before anything is written
    checkBatchSize(conversation, json, db.target);
    checkExpect(conversation, opts?.expect);
    const expect = opts?.expect ?? null;
    // a length beyond what the tables hold is none this conversation can have
    if (expect !== null && expect > MAX_SEQ) throw storeConflict(conversation, expect, await lengthOf(conversation));
    for (let retaken = false; ; retaken = true) {
      const fence = advisory?.fence(conversation, batch) ?? null;
      const sent = performance.now();
      const length = await appendOnce({ conversation, json, count: batch.length, expect, fence, relaxed: !isDurable(opts) });
      if (fence) advisory!.wrote(fence.text, performance.now() - sent); // (a slow one: its turn's next confirm asks the lock session)
      if (length >= 0) return length;
      if (length < -1) throw storeConflict(conversation, expect ?? 0, -2 - length);
      if (retaken || !fence)
        throw new ConversationError("store-io", `PostgreSQL store (${db.target}): the advisory lock of a turn was lost again at once.`);
      await advisory!.retake(fence.text, fence.turn);
    }
  };

  const scan: NonNullable<Store["scan"]> = async (conversation, after, visit) => {
    checkConversationId(conversation);
    checkAfter(conversation, after);
    checkVisit(conversation, visit);
    let at = afterOf(after);
    for (let seen = false, limit = SCAN_FIRST_PAGE; ; seen = true) {
      const { records, batches, length, size } = await page(conversation, at, limit);
      for (const r of records) visit(r);
      if (records.length > 0) at = records[records.length - 1]!.seq;
      // none after `after`: the length read with the page (no query more)
      if (batches < limit) return records.length > 0 || seen ? at : length;
      limit = Math.max(1, Math.min(PAGE, Math.floor((batches * SCAN_PAGE_SIZE) / Math.max(size, 1))));
    }
  };

  /** Every conversation with a record, in pages of CONVERSATION_PAGE rows (`visit` is given each row, in id order). */
  const pagesOfConversations = async (doing: string, columns: string, visit: (row: Row) => void): Promise<void> => {
    for (let last = ""; ; ) {
      const { rows } = await use(doing, () =>
        db.query(`SELECT ${columns} FROM ${s}.conversations WHERE length > 0 AND id > $1 ORDER BY id LIMIT ${CONVERSATION_PAGE}`, [last]),
      );
      for (const row of rows) visit(row);
      if (rows.length < CONVERSATION_PAGE) return;
      last = String(rows.at(-1)!["id"]);
    }
  };

  const list = async (): Promise<string[]> => {
    const ids: string[] = [];
    // a row whose id is no conversation id (another program's, or written by hand) is none of this store's, as node-fs and IndexedDB list
    await pagesOfConversations("list conversations", "id", (row) => {
      const id = String(row["id"]);
      if (isConversationId(id)) ids.push(id);
    });
    return ids;
  };

  const lengths = async (): Promise<Map<string, number>> => {
    const found = new Map<string, number>();
    await pagesOfConversations("read the conversations' lengths", "id, length", (row) => {
      const id = String(row["id"]);
      if (isConversationId(id)) found.set(id, lengthRead(id, row["length"]) ?? 0);
    });
    return found;
  };

  /** Calls under way, and what a close waiting for them to settle is told when the last does. */
  let underWay = 0;
  let settledAll: (() => void) | null = null;
  const settled = (): void => {
    if (--underWay === 0) settledAll?.();
  };
  let closing: Promise<void> | null = null;
  /**
   * A call of the store's: refused once `close` was called; counted until
   * it settles otherwise, so that `close` ends the connections only after
   * it (a call it cut off waited for the pool's connect timeout, then failed).
   */
  const call = <T>(doing: string, fn: () => Promise<T>): Promise<T> => {
    if (closing) return Promise.reject(closedError(doing));
    underWay++;
    const running = called(fn);
    running.then(settled, settled);
    return running;
  };

  const store: PostgresStore = {
    durability: "disk",
    append: (conversation, records, opts) => call(`append to ${conversation}`, () => append(conversation, records, opts)),
    read: (conversation, after) =>
      call(`read ${conversation}`, async () => {
        checkConversationId(conversation);
        checkAfter(conversation, after === undefined ? 0 : after); // (left out: from the start)
        return (await page(conversation, afterOf(after), null)).records;
      }),
    scan: (conversation, after, visit) => call(`read ${conversation}`, () => scan(conversation, after, visit)),
    length: (conversation) =>
      call(`read the length of ${conversation}`, async () => {
        checkConversationId(conversation);
        return lengthOf(conversation);
      }),
    wait: (conversation, after, timeoutMs) =>
      call(`wait on ${conversation}`, async () => {
        checkConversationId(conversation);
        checkAfter(conversation, after);
        checkTimeout(conversation, timeoutMs);
        // `after` as given: the length is compared with it here, never in SQL (below 0, even an empty conversation has more, as in every store)
        return use(`wait on ${conversation}`, () => wakeups.wait(conversation, after, timeoutMs));
      }),
    list: () => call("list conversations", list),
    lengths: () => call("read the conversations' lengths", lengths),
    close: () =>
      (closing ??= (async () => {
        // the close keeps the process alive until it is done: the idle connections it ends do not (pg-db.ts), and a
        // script awaiting it at its top level ended with the close unsettled (exit code 13)
        const alive = setInterval(() => undefined, 60_000);
        try {
          await wakeups.close(); // a wait under way resolves false now
          db.closing?.(); // a call under way that waits for a server to come back (a restart) fails now, not in 20 s
          if (underWay > 0) await new Promise<void>((resolve) => (settledAll = resolve));
          closed = true;
          await advisory?.close();
          await db.close();
        } finally {
          clearInterval(alive);
        }
      })()),
  };
  if (advisory) Object.defineProperty(store, "liveness", { value: advisory.liveness, enumerable: true });
  return store;
}
