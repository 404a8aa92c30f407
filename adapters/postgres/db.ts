/**
 * What the Postgres store needs of a database: statements, a listener and
 * (where there can be more than one connection) sessions of their own.
 * `pg` serves it (pg-db.ts); so does an in-process PostgreSQL in the tests.
 */
export interface Rows {
  rows: Record<string, unknown>[];
}

/** A connection of its own, for session-level advisory locks (queries on it run one after another). */
export interface Session {
  /** The server process that serves it (`pg_backend_pid()`). */
  readonly pid: number;
  query(text: string, params?: readonly unknown[]): Promise<Rows>;
  /** Closes the connection (the server frees its session locks). */
  end(): Promise<void>;
  /** Whether its connection is known to be gone (closed, or ended by the server); absent where that cannot be known. */
  gone?(): boolean;
  /**
   * Whether its connection keeps the process alive while no statement is
   * out (true while it holds a running turn's lock); by default it does
   * not, so an idle session never holds a finished script open. Absent
   * where a connection holds no process open.
   */
  keep?(yes: boolean): void;
}

export interface Db {
  /**
   * One statement (its own transaction unless inside one). With `name`, a
   * statement run often: prepared once per connection under that name (a
   * name always goes with the same text), where the database can. With
   * `ms`, a statement that may give up sooner than the others (best effort):
   * no answer within it fails, as no answer within the store's statement
   * timeout does.
   */
  query(text: string, params?: readonly unknown[], name?: string, ms?: number): Promise<Rows>;
  /**
   * One statement without parameters (a read) whose waits for locks end
   * after `lockMs`, where the role sets no lock_timeout (its own is kept):
   * the server then refuses it (55P03). For a statement that locks its
   * tables as it is parsed (a plain SELECT), which a set_config column of
   * its own comes too late for. Absent where no other session can hold a
   * lock (a database of one connection): `query` serves.
   */
  lockBounded?(text: string, lockMs: number): Promise<Rows>;
  /** Several statements without parameters, run as one implicit transaction. */
  exec(sql: string): Promise<void>;
  /**
   * Listens on `channel` (a lower-case identifier). `onReconnect` runs each
   * time a lost listening connection is back: notifications sent meanwhile
   * were not kept. Resolves once listening, to a function that stops.
   */
  listen(channel: string, onNotify: (payload: string) => void, onReconnect: () => void): Promise<() => Promise<void>>;
  /** Opens a connection of its own; absent where the database has only one. */
  session?(): Promise<Session>;
  /**
   * How long an append may wait for a lock another
   * session holds (where the role sets no lock_timeout): below the deadline
   * after which `query` drops a statement (then of unknown outcome). Absent: 10 s.
   */
  readonly lockWaitMs?: number;
  /** Where it connects (no password), for messages. */
  readonly target: string;
  /** The store is closing: a connection that cannot be made is no longer tried again (the calls under way settle soon). */
  closing?(): void;
  close(): Promise<void>;
}
