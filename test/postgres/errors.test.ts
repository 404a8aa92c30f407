/**
 * Bad input never hangs and never crashes: a wrong URL or password, a
 * server that refuses connections, a database that does not exist, a schema
 * the role cannot create are clear store-io errors that say what to fix.
 * And a string store "postgres://…" is this store.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postgresStore } from "../../adapters/postgres/index.js";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { codeOf, rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, freshSchema } from "./server.js";

/** The store's error for its first use. */
async function firstUse(connectionString: string, schema?: string): Promise<{ code: string; message: string }> {
  const store = postgresStore({ connectionString }, schema ? { schema } : {});
  try {
    await store.read("c");
    return { code: "none", message: "" };
  } catch (e) {
    return { code: (e as { code?: string }).code ?? "not a FunctaiError", message: String((e as Error).message) };
  } finally {
    await store.close();
  }
}

describe("postgresStore: bad input", () => {
  it("refuses what is not a PostgreSQL URL, at once", () => {
    for (const bad of ["not a url", "http://127.0.0.1:5432/x", "", 42]) {
      expect(() => postgresStore({ connectionString: bad as string }), String(bad)).toThrow(expect.objectContaining({ code: "store-io" }));
    }
    expect(() => postgresStore({} as never)).toThrow(expect.objectContaining({ code: "store-io" }));
    expect(() => postgresStore({ connectionString: "postgres://x@127.0.0.1/db" }, { schema: "Robert'); DROP TABLE x;--" })).toThrow(
      expect.objectContaining({ code: "store-io", message: expect.stringContaining("schema name") }),
    );
  });

  it("a server that refuses connections is store-io naming the fix, without waiting", async () => {
    const { code, message } = await firstUse("postgres://app:secret@127.0.0.1:1/app");
    expect(code).toBe("store-io");
    expect(message).toContain("connection was refused");
    expect(message).not.toContain("secret");
  });

  it("a host that does not resolve is store-io", async () => {
    const { code, message } = await firstUse("postgres://app:secret@no-such-host.invalid:5432/app");
    expect(code).toBe("store-io");
    expect(message).toContain("host");
  });
});

describe.skipIf(NO_SERVER !== null)("postgresStore: bad input on a real server", () => {
  const url = new URL(SERVER_URL ?? "postgres://x@y/z");

  it("a wrong password says so, and never shows it", async () => {
    const wrong = new URL(url);
    wrong.password = "not-the-password";
    const { code, message } = await firstUse(wrong.toString());
    expect(code).toBe("store-io");
    expect(message).toContain("password");
    expect(message).not.toContain("not-the-password");
  });

  it("a database that does not exist says so", async () => {
    const missing = new URL(url);
    missing.pathname = `/no_such_db_${Date.now()}`;
    const { code, message } = await firstUse(missing.toString());
    expect(code).toBe("store-io");
    expect(message).toContain("does not exist");
  });

  it("a database that refuses connections says so, at once", async () => {
    const db = `functai_closed_${Math.random().toString(36).slice(2, 10)}`;
    await admin(`CREATE DATABASE ${db} ALLOW_CONNECTIONS false`);
    try {
      const closed = new URL(url);
      closed.pathname = `/${db}`;
      const t0 = Date.now();
      const { code, message } = await firstUse(closed.toString());
      expect(code).toBe("store-io");
      expect(message).toContain("not currently accepting connections");
      expect(message).toContain("ALLOW_CONNECTIONS");
      expect(Date.now() - t0).toBeLessThan(10_000); // not tried again and again: nothing will change by itself
    } finally {
      await admin(`DROP DATABASE ${db}`);
    }
  });

  it("a role allowed no connections says which limit to raise", async () => {
    const role = `nolink_${Math.random().toString(36).slice(2, 10)}`;
    await admin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw' CONNECTION LIMIT 0`);
    try {
      const as = new URL(url);
      as.username = role;
      as.password = "pw";
      const { code, message } = await firstUse(as.toString());
      expect(code).toBe("store-io");
      expect(message).toContain("too many connections for role");
      expect(message).toContain("CONNECTION LIMIT");
    } finally {
      await admin(`DROP ROLE ${role}`);
    }
  });

  it("a schema the role cannot create: store-io naming the privilege; nothing half made", async () => {
    const role = `nocreate_${Math.random().toString(36).slice(2, 10)}`;
    await admin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
    // (PUBLIC has no CREATE on a database by default: a new role cannot make a schema)
    try {
      const as = new URL(url);
      as.username = role;
      as.password = "pw";
      const schema = freshSchema();
      const { code, message } = await firstUse(as.toString(), schema);
      expect(code).toBe("store-io");
      expect(message).toContain(`schema "${schema}"`);
      expect(message).toMatch(/permission denied/);
      expect(message).toContain("grant");
      expect(await admin("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).toEqual([]);
    } finally {
      await admin(`DROP ROLE ${role}`);
    }
  });

  it("a string store postgres://… is the Postgres store, in the default schema of that database", async () => {
    const db = `functai_t_${Math.random().toString(36).slice(2, 10)}`;
    await admin(`CREATE DATABASE ${db}`);
    try {
      const at = new URL(url);
      at.pathname = `/${db}`;
      const answer = ai("answer", { description: "Answers.", input: { q: z.string() } });
      const chat = answer.conversation("sam", { store: at.toString(), lm: scripted([{ text: "forty-two" }]) });
      expect(await chat.send({ q: "What is it?" })).toBe("forty-two");
      const kinds = await (async () => {
        const store = postgresStore({ connectionString: at.toString() });
        const records = await store.read("sam");
        await store.close();
        return records.map((r) => r.kind);
      })();
      expect(kinds).toEqual(expect.arrayContaining(["turn", "lease", "reply", "ended"]));
      // its tables are in that database, in the store's default schema, and nowhere else
      const client = new pg.Client({ connectionString: at.toString(), connectionTimeoutMillis: 10_000 });
      await client.connect();
      try {
        const { rows } = await client.query<{ table_schema: string }>("SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_name = 'batches'");
        expect(rows).toEqual([{ table_schema: "functai" }]);
      } finally {
        await client.end();
      }
      expect(await codeOf(() => postgresStore({ connectionString: at.toString() }).append("../x", [rec()]))).toBe("conversation-id");
    } finally {
      await admin(`DROP DATABASE ${db} WITH (FORCE)`);
    }
  });
});
