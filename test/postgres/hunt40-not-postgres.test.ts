/**
 * Hunt 40: a connection string whose host and port answer, but not as
 * PostgreSQL (another service's port: a web server, a proxy that wants TLS
 * first), so the connection is ended before it is made. It failed
 * `store-io` at once (good), but said "the connection was lost (a server
 * restart or an administrator ended it): the operation may be retried",
 * which sends whoever reads it after a server that never was. It now says
 * the address ended the connection before it was made, and to check that
 * PostgreSQL listens there. A server reached before and lost later (a
 * restart) keeps its own wording (errors.test.ts, hosts.test.ts).
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { outcome } from "./server.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
});

/** A TCP server that answers whatever comes with `reply`, then ends the connection. Resolves to its port. */
async function notPostgres(reply: string): Promise<number> {
  const server = net.createServer((s) => {
    s.on("error", () => undefined);
    s.on("data", () => s.end(reply));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return (server.address() as net.AddressInfo).port;
}

describe("postgresStore on an address that is not a PostgreSQL server", () => {
  it("an HTTP server's port: store-io at once, saying the address ended the connection before it was made, not a restart to retry", async () => {
    const port = await notPostgres("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    const store = postgresStore({ connectionString: `postgres://app:secret@127.0.0.1:${port}/db` });
    cleanups.push(() => store.close());
    const t0 = Date.now();
    const got = String(await outcome(store.append("a", [rec()])));
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(got).toMatch(/^store-io: /);
    expect(got).toContain(`127.0.0.1:${port}`);
    expect(got).toMatch(/before it was made/);
    expect(got).toMatch(/is PostgreSQL listening/);
    expect(got).not.toMatch(/may be retried|restart/);
    expect(got).not.toContain("secret");
  });
});
