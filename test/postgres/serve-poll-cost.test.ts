/**
 * What an idle `serve` over a Postgres store asks the database: its waiting
 * list polls every conversation (pollMs, 200 ms by default), and with
 * several servers behind a load balancer each does. It read every
 * conversation's length with a statement of its own, so an idle server over
 * 1,000 conversations sent 5,000 statements a second. The store now gives
 * every conversation's length in one statement a page (`lengths()`).
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { serve } from "../../adapters/websocket/index.js";
import { rec } from "../store/contract.js";
import { waitingDesk } from "../websocket/fixtures.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

describe.skipIf(NO_SERVER !== null)("serve over a Postgres store, idle", () => {
  it("polls 300 conversations with a few statements a poll, not one each", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const writer = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    const ids = Array.from({ length: 300 }, (_, i) => `c${String(i).padStart(3, "0")}`);
    await Promise.all(ids.map((id) => writer.append(id, [rec()])));
    const d = await waitingDesk(["waits"], { store: writer });
    // the server's store on a pool of the test's, whose statements are counted
    const pool = new pg.Pool({ connectionString: SERVER_URL!, max: 4 });
    keep({ close: () => pool.end() });
    let statements = 0;
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as { query: unknown }).query = (...a: unknown[]) => (statements++, query(...a));
    });
    const store = keep(postgresStore({ pool }, { schema }));
    const pollMs = 50;
    const server = keep(await serve({ store, programs: [d.served], keys: ["k1"], port: 0, pollMs }));
    expect(server.url).toMatch(/^ws:/);
    await new Promise((r) => setTimeout(r, 500)); // first scans done: the conversations' readers made
    const before = statements;
    const windowMs = 1_000;
    await new Promise((r) => setTimeout(r, windowMs));
    const sent = statements - before;
    // at most a few statements per poll (the lengths' one, the waiting turn's read when due), never one per conversation
    const polls = windowMs / pollMs + 1;
    expect(sent, `${sent} statements in ${windowMs} ms`).toBeLessThanOrEqual(polls * 3);
    expect(sent).toBeGreaterThan(0); // it did poll
  }, 30_000);
});
