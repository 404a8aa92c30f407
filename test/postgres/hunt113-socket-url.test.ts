/**
 * Connection strings with no host before their path, which pg reads (its
 * host from `?host=`, a unix socket's directory or a name): the store's
 * `connectionString` form must take them as pg does (over a unix socket:
 * hunt113-unix-socket).
 */
import { describe, expect, it } from "vitest";
import { type Playground, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";
import { MET, twoHostsMeet } from "./fixtures/two-hosts.js";

const { playground, open } = perTest();

/** The playground's URL with its host left out of the authority and given as `?host=` (and `?port=`) instead. */
function hostInQuery(g: Playground, host: string): string {
  const url = new URL(g.url);
  return `postgres://${url.username}:${url.password}@/${g.db}?host=${encodeURIComponent(host)}&port=${url.port || "5432"}&application_name=hunt113`;
}

describe.skipIf(NO_SERVER !== null)("postgres store: a connection string with its host in ?host=", () => {
  // A user expects: the URL pg documents for a unix socket or a host given as a parameter
  // (postgres://user:password@/database?host=…) works as it does with pg itself. Before the fix: postgresStore
  // refused it at once, "the connection string must be a URL such as postgres://user:password@host:5432/database"
  // (index.ts checkUrl: `new URL` throws on an empty host before the path; pg-connection-string reads it with a
  // host of its own and takes ?host=).
  it("postgres://user:pw@/db?host=127.0.0.1: appends, a turn's lock and a wait all work", async () => {
    const ground = await playground();
    expect(await twoHostsMeet(open, hostInQuery(ground, new URL(ground.url).hostname), freshSchema())).toEqual(MET);
  });
});
