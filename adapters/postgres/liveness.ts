import { LeaseLost } from "../../src/engine/runtime.js";
import type { Store } from "../../src/store/types.js";
import type { Db, Session } from "./db.js";
import { storeIo } from "./errors.js";

export type Liveness = NonNullable<Store["liveness"]>;

/** The text whose 64-bit hash keys a turn's advisory lock (the same text in every process). */
export const lockText = (schema: string, conversation: string, turn: string): string => JSON.stringify(["functai", schema, conversation, turn]);

const TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok";
const UNLOCK = "SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS ok";
const IS_HELD = `SELECT EXISTS (
  SELECT 1 FROM pg_locks
  WHERE locktype = 'advisory' AND objsubid = 1 AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)) AS held`;

/** A held turn: the session whose advisory lock says its host is alive. */
interface Hold {
  session: Session;
}

/** Kinds a person or another process may write for a running turn: never fenced. */
const UNFENCED = new Set(["stop", "approval", "head"]);

/**
 * Liveness by session-level advisory locks, each on a connection of its
 * own: a host that dies or is cut off loses its connection and so the lock,
 * at once; a host that only stalls keeps it. Appends of a held turn's
 * records are fenced: they commit only while the lock is held (see
 * `fence`), and a lock whose connection was lost is taken again only if
 * nobody else took it meanwhile.
 */
export class AdvisoryLiveness {
  readonly #held = new Map<string, Hold>();
  readonly #releasing = new Map<string, Promise<void>>();
  readonly #idle: Session[] = [];
  #closed = false;

  constructor(
    readonly db: Db & { session(): Promise<Session> },
    readonly schema: string,
    readonly check: (conversation: string) => void,
  ) {}

  #text(conversation: string, turn: string): string {
    this.check(conversation);
    if (typeof turn !== "string" || turn.length === 0) throw new TypeError("liveness: a turn id must be a non-empty string");
    return lockText(this.schema, conversation, turn);
  }

  async #session(): Promise<Session> {
    return this.#idle.pop() ?? (await this.db.session());
  }

  /** Takes the lock on a session; the session goes back to the idle ones when it is not won. */
  async #tryLock(text: string): Promise<Session | null> {
    for (;;) {
      const reused = this.#idle.length > 0; // an idle session may have lost its connection (a restart): then a new one
      const session = await this.#session();
      let ok: unknown;
      try {
        ok = (await session.query(TRY_LOCK, [text])).rows[0]?.["ok"];
      } catch (e) {
        void session.end();
        if (reused) continue;
        throw storeIo(e, "take a turn's advisory lock", this.db.target);
      }
      if (ok === true) return session;
      this.#idle.push(session);
      return null;
    }
  }

  readonly liveness: Liveness = {
    hold: async (conversation, turn) => {
      const text = this.#text(conversation, turn);
      await this.#releasing.get(text);
      if (this.#closed) throw storeIo(new Error("the store is closed"), "hold a turn", this.db.target);
      const session = this.#held.has(text) ? null : await this.#tryLock(text);
      if (session === null) throw new LeaseLost(`turn ${turn} is running on another host (it holds the turn's advisory lock)`, false, "turn-claimed");
      const hold: Hold = { session };
      this.#held.set(text, hold);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (this.#held.get(text) === hold) this.#held.delete(text);
        const unlocking = this.#unlock(hold.session, text).finally(() => this.#releasing.delete(text));
        this.#releasing.set(text, unlocking);
      };
    },
    isHeld: async (conversation, turn) => {
      const text = this.#text(conversation, turn);
      try {
        return (await this.db.query(IS_HELD, [text])).rows[0]?.["held"] === true;
      } catch (e) {
        throw storeIo(e, "look at a turn's advisory lock", this.db.target);
      }
    },
  };

  async #unlock(session: Session, text: string): Promise<void> {
    try {
      const ok = (await session.query(UNLOCK, [text])).rows[0]?.["ok"];
      if (ok === true && !this.#closed && this.#idle.length < 4) return void this.#idle.push(session);
    } catch {
      // a lost connection freed the lock already
    }
    await session.end();
  }

  /** The held turn whose lock must stand for this batch to be written, if any. */
  fence(conversation: string, records: readonly object[]): { text: string; pid: number; turn: string } | null {
    for (const r of records) {
      const { kind, turn } = r as { kind?: unknown; turn?: unknown };
      if (typeof turn !== "string" || UNFENCED.has(String(kind))) continue;
      const text = lockText(this.schema, conversation, turn);
      const hold = this.#held.get(text);
      if (hold) return { text, pid: hold.session.pid, turn };
    }
    return null;
  }

  /**
   * The fence failed: the lock's connection was lost (a server restart, a
   * terminated backend). Takes the lock again on a new connection if nobody
   * else holds it (the append's compare-and-set still shows whether another
   * host ran the turn meanwhile); otherwise the turn is another's: lease-lost.
   */
  async retake(text: string, turn: string): Promise<void> {
    const hold = this.#held.get(text);
    if (!hold) throw new LeaseLost(`turn ${turn} is no longer held here`);
    void hold.session.end();
    const session = await this.#tryLock(text);
    if (session === null) {
      this.#held.delete(text);
      throw new LeaseLost(`turn ${turn} lost its advisory lock (its database connection was lost) and another host holds it now`);
    }
    hold.session = session;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#releasing.values()]);
    const sessions = [...this.#idle, ...[...this.#held.values()].map((h) => h.session)];
    this.#idle.length = 0;
    this.#held.clear();
    await Promise.all(sessions.map((s) => s.end()));
  }
}
