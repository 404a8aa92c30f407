/**
 * Hunt 23: a pg.Client (or a client checked out of a pool) given as
 * `{ pool }`. It has connect, on, off and query, so it passed for a pool:
 * the store put its pool 'connect' listener on it, and the client's own
 * 'connect' event (which carries no client) threw a TypeError inside an
 * event emitter: an uncaught exception that ended the process. A wrong
 * argument is refused at once (store-io, as every other), and never crashes.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema, thrown } from "./server.js";

const url = SERVER_URL ?? "";

/** The code a store's first append fails with, or its length. */
async function firstAppend(pool: unknown): Promise<unknown> {
  const schema = freshSchema();
  const store = postgresStore({ pool } as never, { schema });
  try {
    return await store.append("c", [rec()]);
  } catch (e) {
    return (e as { code?: unknown }).code;
  } finally {
    await store.close();
    await dropSchema(schema);
  }
}

describe("postgresStore: a client given where a pool goes", () => {
  it("a pg.Client that is not connected: refused at once as store-io naming pg.Pool", () => {
    const client = new pg.Client({ connectionString: "postgres://app:secret@127.0.0.1:1/db" });
    const { code, message } = thrown(() => postgresStore({ pool: client } as never));
    expect(code).toBe("store-io");
    expect(message).toContain("pg.Pool");
    expect(message).toContain("client");
    expect(message).not.toContain("secret");
  });
});

describe.skipIf(NO_SERVER !== null)("postgresStore: a client given where a pool goes, on a real server", () => {
  it("a connected pg.Client, and a client checked out of a pg.Pool: refused at once; the process goes on", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const checkedOut = await pool.connect();
    try {
      for (const given of [client, checkedOut]) {
        const { code } = thrown(() => postgresStore({ pool: given } as never));
        expect(code).toBe("store-io");
      }
      // the client and the pool are untouched, and still work
      expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      expect((await checkedOut.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      checkedOut.release();
      await pool.end();
      await client.end();
    }
  }, 20_000);

  it("a client that is not connected, had the store been made with it: no crash at its first use", async () => {
    // (refused at once since the fix; before it, the first use ended the process with an uncaught TypeError)
    const client = new pg.Client({ connectionString: url });
    let got: unknown;
    try {
      got = await firstAppend(client);
    } catch (e) {
      got = (e as { code?: unknown }).code;
    } finally {
      await client.end().catch(() => undefined);
    }
    expect(got).toBe("store-io");
  }, 20_000);
});
