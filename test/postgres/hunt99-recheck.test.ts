/**
 * Hunt 99, on a real PostgreSQL server: the reads that wake a wait.
 * DESIGN "Many hosts": `wait` listens on one connection per store and
 * re-reads after a reconnect, since notifications are not kept: no lost
 * wake-ups. An append committed while the listener was gone is found only
 * by that re-read, and one it was told of only by the read a notification
 * makes. Either read refused (the pool could get no connection at that
 * moment: the role's or the server's connection limit, reached by hosts
 * reconnecting after a restart) is tried again, never dropped: else a wait
 * without a timeout never woke though its conversation grew.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { type Playground, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { within } from "./fixtures/hunt8-freeze-kit.js";
import { NO_SERVER } from "./server.js";

const { playground, keep } = perTest();

/** The role's listening connection (the store's LISTEN). */
const LISTENING = "SELECT pid FROM pg_stat_activity WHERE usename = $1 AND query LIKE 'LISTEN %'";

/** What the store's connects on its pool came to, in order ("connected", or "refused <code>"). */
type Connects = Promise<string>[];

/** A pool of the caller's, with each connect the store asks of it kept in `connects` (a given pool is the caller's to watch). */
function watchedPool(url: string): { pool: pg.Pool; connects: Connects } {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  const connects: Connects = [];
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = () => {
    const asked = connect();
    connects.push(
      asked.then(
        () => "connected",
        (e: { code?: string }) => `refused ${e?.code}`,
      ),
    );
    return asked;
  };
  return { pool, connects };
}

/**
 * A store on a playground's role, waiting without a timeout on "c" (its
 * waiter's row written), with the role then allowed one connection: the
 * listener's (the one it has, or the one it makes again).
 */
async function waitingStore(): Promise<{ ground: Playground; pool: pg.Pool; connects: Connects; store: PostgresStore; waiting: Promise<boolean> }> {
  const ground = await playground();
  const { pool, connects } = watchedPool(ground.url);
  const store = postgresStore({ pool }, { schema: "functai" });
  keep(store);
  expect(await store.append("made", [rec()])).toBe(1); // (the tables made)
  const waiting = store.wait!("c", 0, Number.POSITIVE_INFINITY);
  await until("the waiter's row", async () => (await ground.sql(`SELECT 1 FROM functai.waiters WHERE conversation = 'c'`)).length === 1);
  await ground.sql(`ALTER ROLE ${ground.role} CONNECTION LIMIT 1`);
  return { ground, pool, connects, store, waiting };
}

/** On `admin`: ends the role's connections but `spared` (waiting until each is gone), and the pool's are gone from it too. */
async function endConnections(admin: pg.Client, ground: Playground, pool: pg.Pool, spared: number[] = []): Promise<void> {
  const ended = await admin.query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE usename = $1 AND NOT pid = ANY ($2::int[])", [
    ground.role,
    spared,
  ]);
  expect(ended.rows.length).toBeGreaterThan(0);
  await until("the pool without the ended connections", async () => pool.totalCount === 0);
}

/** An append to "c" by another session (the store's SQL function, as any host's append). */
const APPEND = "SELECT functai.append('c', $1::json, NULL, NULL, NULL, NULL, 1)";

async function adminOn(ground: Playground): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: ground.adminUrl });
  admin.on("error", () => undefined);
  await admin.connect();
  return admin;
}

/**
 * `cut`, on an admin session, has the store's next read refused (the role's one connection taken by the listener)
 * and says how many connects the store had asked for before it; then the role's limit is lifted: the refused read
 * must be tried again, and the wait (no timeout) wake.
 */
async function refusedThenWakes(cut: (admin: pg.Client, w: Awaited<ReturnType<typeof waitingStore>>) => Promise<number>): Promise<void> {
  const w = await waitingStore();
  try {
    const admin = await adminOn(w.ground);
    let before: number;
    try {
      before = await cut(admin, w);
    } finally {
      await admin.end();
    }
    await until("the read's connect", async () => w.connects.length > before);
    expect(await w.connects[before]).toBe("refused 53300");
    await w.ground.sql(`ALTER ROLE ${w.ground.role} CONNECTION LIMIT -1`);
    expect((await within(w.waiting, 15_000)).got).toBe("true");
  } finally {
    await w.store.close();
    await w.pool.end();
  }
}

describe.skipIf(NO_SERVER !== null)("the reads that wake a wait, refused once", () => {
  it("the re-read after the listener came back: tried again, so a wait without a timeout wakes for the append it missed", async () => {
    await refusedThenWakes(async (admin, { ground, pool, connects }) => {
      const before = connects.length;
      // an append committed once every connection of the store's was gone: its notification reaches nobody
      await admin.query("BEGIN");
      await admin.query(APPEND, [JSON.stringify([rec()])]);
      await endConnections(admin, ground, pool);
      await admin.query("COMMIT");
      await until("the listener back", async () => (await ground.sql(LISTENING, [ground.role])).length === 1);
      return before;
    });
  }, 60_000);

  it("the read a notification makes: tried again, so a wait without a timeout wakes for the append it was told of", async () => {
    await refusedThenWakes(async (admin, { ground, pool, connects }) => {
      const listener = (await ground.sql<{ pid: number }>(LISTENING, [ground.role])).map((r) => r.pid);
      expect(listener.length).toBe(1);
      // the pool's connections gone, the listener kept (it holds the role's one slot)
      await endConnections(admin, ground, pool, listener);
      const before = connects.length;
      await admin.query(APPEND, [JSON.stringify([rec()])]);
      return before;
    });
  }, 60_000);
});
