/**
 * Hunt 30: postgresStore's arguments in shapes it cannot take are refused at
 * once (store-io, as wrong-arguments.test.ts's), saying what to give, before
 * any connection: never one part of them quietly used and another quietly
 * left out (a store on the wrong server, or in the wrong schema, would write
 * where nobody reads). Its arguments' values never show (a URL holds a
 * password).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { thrown } from "./server.js";

const URL_ = "postgres://app:secret@127.0.0.1:1/db"; // (port 1: a store that connected anyway would fail, not hang)

describe("postgresStore refuses arguments it would partly ignore", () => {
  // Found by hunt 30 (failed before): both were given, and the pool was used without a word: the URL (another server?) left out.
  it("both a connectionString and a pool: refused, naming both, never either used", async () => {
    const pool = new pg.Pool({ connectionString: URL_ });
    try {
      const { code, message } = thrown(() => postgresStore({ connectionString: URL_, pool } as never));
      expect(code).toBe("store-io");
      expect(message).toMatch(/connectionString.*pool|pool.*connectionString/);
      expect(message).toMatch(/not both|one of/);
      expect(message).not.toContain("secret");
      expect(pool.totalCount).toBe(0); // nothing was connected
    } finally {
      await pool.end();
    }
  });

  // Found by hunt 30 (failed before): keys of the connection other than connectionString and pool were dropped, a schema
  // put there (as pg's own options take one) among them: the store wrote into "functai".
  it("other keys next to connectionString or pool (a schema in the wrong argument, pg's pool options): refused, naming the keys", async () => {
    const pool = new pg.Pool({ connectionString: URL_ });
    try {
      for (const connection of [
        { connectionString: URL_, schema: "desk" },
        { connectionString: URL_, max: 5 },
        { pool, statementTimeoutMs: 1000 },
        { pool, ssl: true },
      ]) {
        const { code, message } = thrown(() => postgresStore(connection as never));
        const extra = Object.keys(connection).find((k) => k !== "connectionString" && k !== "pool")!;
        expect(code, extra).toBe("store-io");
        expect(message, extra).toContain(extra);
        expect(message).not.toContain("secret");
      }
      // where the schema goes
      expect(thrown(() => postgresStore({ connectionString: URL_, schema: "desk" } as never)).message).toContain("second argument");
    } finally {
      await pool.end();
    }
  });

  // Found by hunt 30 (failed before): an option the store does not have (a typo) was left out without a word: { schems:
  // "desk" } wrote into "functai", { statementTimeout: 5000 } waited 30 s.
  it("options it does not have (a typo of schema or statementTimeoutMs): refused, naming them and the options it has", () => {
    for (const options of [{ schems: "desk" }, { schema: "desk", statementTimeout: 5_000 }, { Schema: "desk" }]) {
      const { code, message } = thrown(() => postgresStore({ connectionString: URL_ }, options as never));
      const extra = Object.keys(options).find((k) => k !== "schema")!;
      expect(code, extra).toBe("store-io");
      expect(message, extra).toContain(extra);
      expect(message).toContain("statementTimeoutMs");
    }
    // the options it has, and undefined ones, are taken
    expect(thrown(() => postgresStore({ connectionString: URL_ }, { schema: "desk", statementTimeoutMs: 5_000 })).code).toBe("none");
    expect(thrown(() => postgresStore({ connectionString: URL_ }, { schema: undefined, statementTimeoutMs: undefined } as never)).code).toBe("none");
  });

  it("a connectionString that is empty, not a string, or not a postgres URL; a pool, a URL or an empty string given as the connection itself: refused at once", () => {
    const pool = new pg.Pool({ connectionString: URL_ });
    try {
      for (const connectionString of ["", " ", 5, null, undefined, {}, "mysql://a@b/c", "127.0.0.1:5432"]) {
        const { code, message } = thrown(() => postgresStore({ connectionString } as never));
        expect(code, String(connectionString)).toBe("store-io");
        expect(message).toContain("postgres://");
      }
      const { code, message } = thrown(() => postgresStore(pool as never));
      expect(code).toBe("store-io");
      expect(message).toContain("{ pool }");
      // the URL itself, or an empty string, where the connection goes: refused, the URL's password never shown
      for (const connection of [URL_, ""]) {
        const refused = thrown(() => postgresStore(connection as never));
        expect(refused.code).toBe("store-io");
        expect(refused.message).toContain("connectionString");
        expect(refused.message).not.toContain("secret");
      }
    } finally {
      void pool.end();
    }
  });
});
