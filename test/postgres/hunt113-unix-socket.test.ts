/**
 * A store connected over a unix socket (`?host=` naming its directory), with
 * a password: here a socket of the test's own, forwarded to the test server's
 * TCP port, so that the server's restart can be played (the socket's file
 * gone, then made again, as PostgreSQL does).
 */
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { type Playground, outcome, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, SERVER_URL, freshSchema } from "./server.js";
import { MET, twoHostsMeet } from "./fixtures/two-hosts.js";

const { playground, open } = perTest();

/** A unix socket `<dir>/.s.PGSQL.5432` forwarded to the test server; `down` removes it (its connections cut), `up` makes it again. */
interface SocketServer {
  dir: string;
  up(): Promise<void>;
  down(): Promise<void>;
}

const dirs: string[] = [];
const servers: SocketServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.down();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function socketServer(): SocketServer {
  const dir = mkdtempSync(join(tmpdir(), "h113-"));
  dirs.push(dir);
  const target = new URL(SERVER_URL!);
  let listening: net.Server | null = null;
  const sockets = new Set<net.Socket>();
  const server: SocketServer = {
    dir,
    async up() {
      listening = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
      });
      const l = listening;
      await new Promise<void>((r) => l.listen(join(dir, ".s.PGSQL.5432"), r));
    },
    async down() {
      const l = listening;
      listening = null;
      if (!l) return;
      const closed = new Promise<void>((r) => l.close(() => r())); // (Node removes the socket's file)
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
  servers.push(server);
  return server;
}

/** The playground's role and database on the unix socket in `dir`. */
function socketUrl(g: Playground, dir: string): string {
  const url = new URL(g.url);
  return `postgres://${url.username}:${url.password}@/${g.db}?host=${encodeURIComponent(dir)}&port=5432`;
}

describe.skipIf(NO_SERVER !== null)("postgres store over a unix socket", () => {
  // A user expects: the URL pg documents for a unix socket (postgres://user:password@/database?host=/dir) works as
  // with pg itself. Before the fix: postgresStore refused it at once, "the connection string must be a URL such as
  // postgres://user:password@host:5432/database" (index.ts checkUrl: `new URL` throws on the empty host before the
  // path, which pg-connection-string reads with a host of its own, taking ?host=).
  it("postgres://user:pw@/db?host=<dir>: appends, a turn's lock and a wait work", async () => {
    const ground = await playground();
    const socket = socketServer();
    await socket.up();
    expect(await twoHostsMeet(open, socketUrl(ground, socket.dir), freshSchema())).toEqual(MET);
  });

  // A user expects: while the server restarts, the store's calls wait for it (up to 20 s), as over TCP. Before the
  // fix: over a unix socket, PostgreSQL removes the socket's file while it is down, so a connect fails ENOENT, which
  // the store did not count as "the server is down" (pg-db.ts retriable: ECONNREFUSED, TCP's word for it, only):
  // the call failed store-io at once, "connect ENOENT … (see the server's message)", with no server's message.
  it("the server restarting (its socket's file gone a moment): an append waits for it and is kept", async () => {
    const ground = await playground();
    const socket = socketServer();
    await socket.up();
    const store = open(socketUrl(ground, socket.dir), freshSchema());
    // the server reached (by a turn's lock session), and no client idle in the pool that the restart would leave dead
    const release = await store.liveness!.hold("sam", "t0");
    release();
    await socket.down();
    const during = outcome(store.append("sam", [rec()], { expect: 0 }));
    await new Promise((r) => setTimeout(r, 700)); // (the server down this long: the append's connects meanwhile fail)
    await socket.up();
    expect(await during).toEqual({ ok: true, value: 1 });
  });

  it("a socket directory with no server: store-io saying so, never 'see the server's message'", async () => {
    const ground = await playground();
    const dir = mkdtempSync(join(tmpdir(), "h113-none-"));
    dirs.push(dir);
    const got = await outcome(open(socketUrl(ground, dir), freshSchema()).append("sam", [rec()]));
    expect(got.code).toBe("store-io");
    expect(got.message).toContain("no unix socket of that name");
    expect(got.message).toContain(`postgres://${ground.role}:***@/${ground.db}?host=`);
  });
});
