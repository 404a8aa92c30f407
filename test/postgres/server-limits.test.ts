/**
 * Limits the server or the pool's owner sets are named as what they are:
 * a statement the server cancels (statement_timeout) is not a network
 * problem, a session it ends for idling is not a slow host, and a pool its
 * owner ended is not the server's message.
 */
import { describe, expect, it } from "vitest";
import pg from "pg";
import { postgresStore } from "../../adapters/postgres/index.js";
import { storeIo } from "../../adapters/postgres/errors.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** What `p` rejects with (its code and message), or "none". */
async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
    return { code: "none", message: "" };
  } catch (e) {
    return { code: String((e as { code?: unknown }).code), message: String((e as Error).message) };
  }
}

describe("store-io names the server's limits", () => {
  it("a session ended for idling (idle_session_timeout, 57P05) is not called a network problem", () => {
    const e = Object.assign(new Error("terminating connection due to idle-session timeout"), { code: "57P05", severity: "FATAL" });
    const { message, code } = storeIo(e, "append to c", "db");
    expect(code).toBe("store-io");
    expect(message).toContain("idle_session_timeout");
    expect(message).not.toContain("firewall");
  });

  it("a transaction ended for idling (idle_in_transaction_session_timeout, 25P03) says which setting", () => {
    const e = Object.assign(new Error("terminating connection due to idle-in-transaction timeout"), { code: "25P03", severity: "FATAL" });
    const { message } = storeIo(e, "append to c", "db");
    expect(message).toContain("idle_in_transaction_session_timeout");
    expect(message).not.toContain("firewall");
  });
});

describe.skipIf(NO_SERVER !== null)("store-io names the server's limits, on a real server", () => {
  it("an append the server cancels for its statement_timeout names that setting, not the network", async () => {
    const schema = freshSchema();
    const made = postgresStore({ connectionString: url }, { schema });
    expect(await made.append("c", [rec()])).toBe(1); // (the tables made, under no limit)
    await made.close();
    // another session holds the conversation's row: the append waits on it until the limit cancels it (never a race on timing)
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query("BEGIN");
    await blocker.query(`SELECT 1 FROM "${schema}".conversations WHERE id = 'c' FOR UPDATE`);
    const pool = new pg.Pool({ connectionString: url, max: 2, statement_timeout: 200 } as pg.PoolConfig);
    const store = postgresStore({ pool }, { schema });
    try {
      const { code, message } = await failure(store.append("c", [rec()]));
      expect(code).toBe("store-io");
      expect(message).toContain("statement_timeout");
      expect(message).not.toContain("firewall");
    } finally {
      await blocker.query("ROLLBACK");
      await blocker.end();
      await store.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 30_000);

  it("a pool its owner ended before the store is closed says so, not 'see the server's message'", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = postgresStore({ pool }, { schema });
    expect(await store.append("c", [rec()])).toBe(1);
    await pool.end();
    const { code, message } = await failure(store.append("c", [rec()]));
    expect(code).toBe("store-io");
    expect(message).toContain("pool was ended");
    expect(message).not.toContain("see the server's message");
    await store.close(); // the pool is gone: close still settles
    await store.close();
    expect((await failure(store.read("c"))).code).toBe("store-io");
    await dropSchema(schema);
  }, 30_000);
});

describe.skipIf(NO_SERVER !== null)("liveness after close, on a real server", () => {
  it("isHeld after close says the store is closed (never a pool error, never an answer)", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    const release = await store.liveness!.hold("c", "t1");
    release();
    await store.close();
    const held = await failure(store.liveness!.isHeld("c", "t1"));
    expect(held.code).toBe("store-io");
    expect(held.message).toContain("closed");
    expect(held.message).not.toContain("server's message"); // no server said anything
    const hold = await failure(store.liveness!.hold("c", "t2"));
    expect(hold.code).toBe("store-io");
    expect(hold.message).toContain("closed");
    await dropSchema(schema);
  }, 30_000);
});
