import { LeaseLost } from "../../src/engine/runtime.js";
import type { Store } from "../../src/store/types.js";
import type { Db, Session } from "./db.js";
import { answers } from "./deadline.js";
import { storeIo } from "./errors.js";
import { Grouped, oneOrMany } from "./grouped.js";

export type Liveness = NonNullable<Store["liveness"]>;

/** The text whose 64-bit hash keys a turn's advisory lock (the same text in every process). */
export const lockText = (schema: string, conversation: string, turn: string): string => JSON.stringify(["functai", schema, conversation, turn]);

const TRY_LOCK = "SELECT pg_catalog.pg_try_advisory_lock(pg_catalog.hashtextextended($1, 0)) AS ok";
const UNLOCK = "SELECT pg_catalog.pg_advisory_unlock(pg_catalog.hashtextextended($1, 0)) AS ok";
/**
 * Several takes and releases as one statement, in the order given: `$1` is a
 * JSON array of `[take, text]` (take: true to try the lock, false to let it go).
 */
const LOCKS = `SELECT CASE WHEN (t.a->>0)::bool THEN pg_catalog.pg_try_advisory_lock(pg_catalog.hashtextextended(t.a->>1, 0))
  ELSE pg_catalog.pg_advisory_unlock(pg_catalog.hashtextextended(t.a->>1, 0)) END AS ok
  FROM pg_catalog.json_array_elements($1::json) WITH ORDINALITY AS t(a, ord) ORDER BY t.ord`;
/** The lock session's own key (two int4s: never the form of a turn's lock), held for its whole life. */
const SESSION_LOCK = "SELECT pg_catalog.pg_try_advisory_lock($1::int4, $2::int4) AS ok";
const IS_HELD = `SELECT EXISTS (
  SELECT 1 FROM pg_catalog.pg_locks
  WHERE locktype = 'advisory' AND objsubid = 1 AND granted
    AND database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
    AND ((classid::bigint << 32) | objid::bigint) = pg_catalog.hashtextextended($1, 0)) AS held`;

/**
 * The lock session of a store: opened once, shared by every turn it holds,
 * replaced once its connection is lost. It holds its own random `key` as
 * long as it lives: an append sees the session alive by that lock alone.
 */
interface Shared {
  session: Promise<Session>;
  key: readonly [number, number];
  lost: boolean;
  locks: Grouped<LockOp, boolean>;
  /** Asks the session whether it answers (sharedQuestions), made with it. */
  ask: Promise<() => Promise<boolean>>;
}

/** A take (`take`: try the lock) or release of a turn's lock. */
interface LockOp {
  readonly take: boolean;
  readonly text: string;
}

/**
 * The takes and releases of one lock session's turn locks, grouped
 * (grouped.ts): one goes at once when the session has none out; those that
 * come meanwhile (other turns starting and ending) go together in the next
 * statement. Each resolves to the server's answer (true: taken, or let go).
 * A statement that fails fails each of them, and is never resent: a
 * session-level lock taken by a failed statement stays taken, so the
 * callers drop the session (only ending it surely frees it).
 */
const lockStatements = (session: Promise<Session>): Grouped<LockOp, boolean> =>
  new Grouped(
    1,
    oneOrMany(
      {
        one: async ({ take, text }) => (await (await session).query(take ? TRY_LOCK : UNLOCK, [text])).rows[0]?.["ok"] === true,
        many: async (ops) => {
          const { rows } = await (await session).query(LOCKS, [JSON.stringify(ops.map((op) => [op.take, op.text]))]);
          return rows.map((row) => row["ok"] === true);
        },
      },
      undefined,
      false,
    ),
  );

/** A held turn: the shared session its advisory lock was taken on. */
interface Hold {
  shared: Shared;
  retaking: Promise<void> | null;
}

/**
 * A fenced append that took longer than this (from the client's send to its
 * answer) makes the next `confirm` of its turn ask the lock session itself
 * (one round trip). The fence saw the session alive when the append ran on
 * the server; an answer that came this late may have waited out a network
 * partition, during which the server ended the session without the end
 * reaching this host: its socket still looks open, and another host may have
 * taken the turn. Far above an ordinary write (a millisecond; tens on a
 * loaded machine), well below the 4 s at least that the server's keepalives
 * (SESSION_SETTINGS in pg-db.ts) take to end a partitioned session.
 */
export const SLOW_WRITE_MS = 1_000;

/**
 * The questions of one session (`answers`), shared: a turn that asks while
 * one is out waits for the next, sent once that one is answered, with every
 * turn that asked meanwhile (an answer proves the session alive only if it
 * was asked after the turn's slow write came back). At most one out, one
 * waiting: many turns of a loaded host ask a few questions, not one each.
 */
export function sharedQuestions(session: Session): () => Promise<boolean> {
  let out: Promise<boolean> | null = null;
  let next: Promise<boolean> | null = null;
  return () => {
    if (out === null) {
      out = answers((text) => session.query(text)).finally(() => (out = null));
      return out;
    }
    next ??= out.then(() => {
      next = null;
      out = answers((text) => session.query(text)).finally(() => (out = null));
      return out;
    });
    return next;
  };
}

const noop = (): void => undefined;

/** A random int4. */
const int4 = (): number => (Math.random() * 2 ** 32) | 0;

/** Kinds a person or another process may write for a running turn: never fenced. */
const UNFENCED = new Set(["stop", "approval", "head"]);

/**
 * Liveness by session-level advisory locks, all of a store's on ONE
 * connection of its own (a session may hold many): a process with many
 * running turns uses one connection for their locks, not one each. A host
 * that dies or is cut off loses that connection and so every lock at once;
 * a host that only stalls keeps them. Appends of a held turn's records are
 * fenced: they commit only while its lock is held by that session (see
 * `fence`). Once the session is lost, each turn it held is fenced out at its
 * next append and takes its lock again on a new session only if nobody else
 * took it meanwhile (else lease-lost). A turn that ends unlocks its own lock only.
 */
export class AdvisoryLiveness {
  readonly #held = new Map<string, Hold>();
  /** Locks being taken by `hold` (so that two holds of one turn never both win on the one session). */
  readonly #taking = new Set<string>();
  readonly #releasing = new Map<string, Promise<void>>();
  /** Held turns (their lock texts) with a fenced append that took longer than SLOW_WRITE_MS since their last confirm. */
  readonly #slow = new Set<string>();
  #shared: Shared | null = null;
  #closed = false;
  /**
   * The liveness calls under way (each settled either way): `close` lets them settle before the store ends its
   * connections, as it lets the store's other calls settle. Not counted, an `isHeld` asked as the store closed had
   * its statement sent to a pool being ended: it waited the pool's connect timeout, then failed.
   */
  readonly #calls = new Set<Promise<void>>();

  constructor(
    readonly db: Db & { session(): Promise<Session> },
    readonly schema: string,
    readonly check: (conversation: string) => void,
  ) {}

  /** `run()`, counted among the calls under way until it settles. */
  #counted<T>(run: () => Promise<T>): Promise<T> {
    const running = run();
    const settled: Promise<void> = running.then(noop, noop).then(() => void this.#calls.delete(settled));
    this.#calls.add(settled);
    return running;
  }

  #text(conversation: string, turn: string): string {
    this.check(conversation);
    if (typeof turn !== "string" || turn.length === 0) throw new TypeError("liveness: a turn id must be a non-empty string");
    return lockText(this.schema, conversation, turn);
  }

  /** The shared lock session, opened on first use (and again after one was lost). */
  #current(): Shared {
    if (this.#shared === null) {
      const key = [int4(), int4()] as const;
      const opening = this.db.session().then(async (session) => {
        let ok: unknown;
        try {
          ok = (await session.query(SESSION_LOCK, key)).rows[0]?.["ok"];
        } finally {
          if (ok !== true) await session.end();
        }
        if (ok !== true) throw new Error("the lock session's random key is held by another session");
        return session;
      });
      const shared: Shared = { session: opening, key, lost: false, locks: lockStatements(opening), ask: opening.then(sharedQuestions) };
      shared.ask.catch(noop);
      shared.session.catch(() => void this.#drop(shared));
      this.#shared = shared;
    }
    return this.#shared;
  }

  /**
   * Has each lock session keep the process alive while it holds a running
   * turn's lock, and only then (Session.keep): an idle one never holds a
   * finished script open.
   */
  #pin(): void {
    const shareds = new Set<Shared>([...this.#held.values()].map((h) => h.shared));
    if (this.#shared) shareds.add(this.#shared);
    for (const shared of shareds) {
      const keep = !this.#closed && [...this.#held.values()].some((h) => h.shared === shared);
      void shared.session.then(
        (s) => s.keep?.(keep),
        () => undefined,
      );
    }
  }

  /** Forgets a lock session whose connection was lost (its locks are gone with it) and ends it. */
  #drop(shared: Shared): Promise<void> {
    if (this.#shared === shared) this.#shared = null;
    if (shared.lost) return Promise.resolve();
    shared.lost = true;
    return shared.session.then(
      (s) => s.end(),
      () => undefined,
    );
  }

  /**
   * Takes the lock on the shared session: the session, or null when
   * another session holds it. A session already open whose query fails has
   * lost its connection (a restart, a terminated backend): a new one is opened.
   */
  async #tryLock(text: string): Promise<Omit<Hold, "retaking"> | null> {
    for (let tries = 0; ; tries++) {
      const reused = this.#shared !== null;
      const shared = this.#current();
      let ok: boolean;
      try {
        ok = await shared.locks.run({ take: true, text });
      } catch (e) {
        void this.#drop(shared);
        if (reused && tries < 2 && !this.#closed) continue;
        throw storeIo(e, "take a turn's advisory lock", this.db.target);
      }
      return ok ? { shared } : null;
    }
  }

  readonly liveness: Liveness = {
    refusesAtOnce: true, // a try of the lock: another session holding it is a turn-claimed at once
    confirm: (conversation, turn) => this.#counted(() => this.#confirm(conversation, turn)),
    hold: (conversation, turn) => this.#counted(() => this.#hold(conversation, turn)),
    isHeld: (conversation, turn) => this.#counted(() => this.#isHeld(conversation, turn)),
  };

  async #hold(conversation: string, turn: string): Promise<() => void> {
    const text = this.#text(conversation, turn);
    await this.#releasing.get(text);
    if (this.#closed) throw storeIo(new Error("the store is closed"), "hold a turn", this.db.target);
    const claimed = () => new LeaseLost(`turn ${turn} is running on another host (it holds the turn's advisory lock)`, false, "turn-claimed");
    if (this.#held.has(text) || this.#taking.has(text)) throw claimed();
    this.#taking.add(text);
    let got: Omit<Hold, "retaking"> | null;
    try {
      got = await this.#tryLock(text);
    } finally {
      this.#taking.delete(text);
    }
    if (got === null) throw claimed();
    const hold: Hold = { ...got, retaking: null };
    this.#held.set(text, hold);
    this.#pin();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (this.#held.get(text) === hold) {
        this.#held.delete(text);
        this.#slow.delete(text);
      }
      this.#pin();
      const unlocking = this.#unlock(hold, text).finally(() => this.#releasing.delete(text));
      this.#releasing.set(text, unlocking);
    };
  }

  async #isHeld(conversation: string, turn: string): Promise<boolean> {
    const text = this.#text(conversation, turn);
    // this process's own unlock of it still on its way is let reach the server first: a turn that stopped here reads as let go, not as held
    await this.#releasing.get(text);
    // as hold: a closed store answers nothing (its own pool is ended: the pool's error would blame the caller)
    if (this.#closed) throw storeIo(new Error("the store is closed"), "look at a turn's advisory lock", this.db.target);
    try {
      return (await this.db.query(IS_HELD, [text])).rows[0]?.["held"] === true;
    } catch (e) {
      throw storeIo(e, "look at a turn's advisory lock", this.db.target);
    }
  }

  /** Unlocks one turn's lock on the shared session (a retake in flight first ends); the other turns' locks stay. */
  async #unlock(hold: Hold, text: string): Promise<void> {
    await hold.retaking?.catch(() => undefined);
    if (hold.shared.lost || this.#closed) return; // a lost connection freed the lock already
    try {
      await hold.shared.locks.run({ take: false, text });
    } catch {
      void this.#drop(hold.shared); // the connection is gone, and every lock on it: the other turns retake theirs at their next append
    }
  }

  /** The held turn whose lock must stand for this batch to be written, if any. */
  fence(conversation: string, records: readonly object[]): { text: string; session: readonly [number, number]; turn: string } | null {
    for (const r of records) {
      const { kind, turn } = r as { kind?: unknown; turn?: unknown };
      if (typeof turn !== "string" || UNFENCED.has(String(kind))) continue;
      const text = lockText(this.schema, conversation, turn);
      const hold = this.#held.get(text);
      if (hold) return { text, session: hold.shared.key, turn };
    }
    return null;
  }

  /** A fenced append of the turn whose lock is `text` took `ms` (its send to its answer): a slow one is confirmed by a round trip. */
  wrote(text: string, ms: number): void {
    if (ms > SLOW_WRITE_MS && this.#held.has(text)) this.#slow.add(text);
  }

  /**
   * The fence failed: the lock's session was lost (a server restart, a
   * terminated backend), or only this turn's lock is no longer held. Takes
   * the lock again if nobody else holds it (the append's compare-and-set
   * still shows whether another host ran the turn meanwhile); otherwise the
   * turn is another's: lease-lost. The shared session is replaced only when
   * it is lost (its query fails): one turn's fence never frees the others'
   * locks.
   */
  retake(text: string, turn: string): Promise<void> {
    const hold = this.#held.get(text);
    if (!hold) return Promise.reject(new LeaseLost(`turn ${turn} is no longer held here`));
    hold.retaking ??= (async () => {
      // on the shared session while it answers (a lost one fails its query and is replaced): never dropped on a guess
      const got = await this.#tryLock(text);
      if (got === null) {
        if (this.#held.get(text) === hold) {
          this.#held.delete(text);
          this.#slow.delete(text);
        }
        throw new LeaseLost(`turn ${turn} lost its advisory lock (its database connection was lost) and another host holds it now`);
      }
      Object.assign(hold, got);
      this.#pin();
    })().finally(() => (hold.retaking = null));
    return hold.retaking;
  }

  /**
   * After a wait (a durable write, the longest one before a changing tool
   * runs): whether this process still holds `turn`. A holder paused there (a
   * suspended VM, a long GC) may wake with its lock session ended by the
   * server and the turn taken by another host, while its lease has time
   * left. The connection's own events say so once they are read: the event
   * loop is let run (two turns of it, so that its I/O is read). A write that
   * took longer than SLOW_WRITE_MS may have waited out a partition whose
   * end of the session never reached this host: then the session is asked
   * (`SELECT 1`; a connection the server forgot answers with a reset, one
   * that does not answer within PROBE_TIMEOUT_MS is taken as lost). A lost
   * session takes the lock again (one round trip, only then), or the turn is
   * another's: lease-lost. Nothing is asked of the server otherwise. True
   * when the lock was taken again: another host may have run the turn and
   * let it go meanwhile, which only the journal shows (the caller renews its
   * lease, a conditional append).
   */
  async #confirm(conversation: string, turn: string): Promise<boolean> {
    const text = this.#text(conversation, turn);
    await new Promise<void>((r) => setImmediate(r));
    await new Promise<void>((r) => setImmediate(r));
    const hold = this.#held.get(text);
    if (!hold) throw new LeaseLost(`turn ${turn} is no longer held here`);
    const slow = this.#slow.delete(text);
    const session = await hold.shared.session.catch(() => null);
    const alive = session !== null && !hold.shared.lost && session.gone?.() !== true && (!slow || (await (await hold.shared.ask)()));
    if (alive) return false;
    void this.#drop(hold.shared);
    await this.retake(text, turn);
    return true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    // (each is bounded: its statements by the store's statement timeout)
    while (this.#calls.size > 0) await Promise.all([...this.#calls]);
    this.#slow.clear();
    // the unlocks on their way are not waited for: ending the session frees every lock on it, and an unlock that gets
    // no answer (a partitioned network) would hold the close for the session's whole statement timeout
    this.#held.clear();
    if (this.#shared) await this.#drop(this.#shared);
  }
}
