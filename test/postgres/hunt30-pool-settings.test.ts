/**
 * Hunt 30, on a real PostgreSQL server: a given pool configured by its parts
 * (host, user, password, database: how pg's own docs make one) rather than a
 * URL. README "Many hosts": `{ pool }` is a pg.Pool of yours; `wait` listens
 * on one connection of the store's own, and a running turn's lock is held on
 * one more, both opened with the pool's settings; connecting gives up after
 * 10 s, never hangs.
 */
import net from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema, outcome, settle } from "./server.js";

describe.skipIf(NO_SERVER !== null)("a given pool made from host, user and password", () => {
  // Found by hunt 30 (failed before): pg-pool keeps the password as a property that is not enumerable (so it shows in no
  // log), and the store copied the pool's options with a spread to open its own connections: they went without a
  // password, and every wait and every turn's lock failed store-io ("client password must be a string").
  it("waits wake on another store's append, and a turn's lock is taken and seen: the store's own connections use the pool's password", async () => {
    const url = new URL(SERVER_URL!);
    const pool = new pg.Pool({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
    });
    const schema = freshSchema();
    const store = postgresStore({ pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1); // the pool's own connections
      const waiting = settle(store.wait!("c", 1, 10_000));
      await new Promise((r) => setTimeout(r, 500));
      expect(await other.append("c", [rec()])).toBe(2);
      expect((await waiting).got).toBe(true);
      const release = await store.liveness!.hold("c", "t");
      expect(await other.liveness!.isHeld("c", "t")).toBe(true);
      expect(await store.append("c", [rec("note", { turn: "t" })])).toBe(3); // fenced by that lock
      release();
    } finally {
      await store.close();
      await other.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 30_000);
});

describe('a given pool whose connectionTimeoutMillis is 0 (pg\'s "no limit"), on a server that accepts and never answers', () => {
  // Found by hunt 30 (failed before): the store's own connections took the pool's 0 over their 10 s, and waited for
  // the server's first answer without end: a turn's hold (its start) never settled.
  it("a turn's hold fails store-io within the 10 s connect limit (the store's own connection), as the pool's do", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => void sockets.add(s)); // accepts, says nothing
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const pool = new pg.Pool({
      host: "127.0.0.1",
      port: (silent.address() as net.AddressInfo).port,
      user: "x",
      database: "x",
      connectionTimeoutMillis: 0,
    });
    const store = postgresStore({ pool }, { schema: "s" });
    try {
      const t0 = Date.now();
      expect(await outcome(store.liveness!.hold("c", "t"))).toMatch(/^store-io: /);
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      for (const s of sockets) s.destroy();
      await store.close();
      await pool.end();
      await new Promise((r) => silent.close(r));
    }
  }, 40_000);
});
