/**
 * Settings of the role that turn a statement into an error the store must
 * tell apart: lock_timeout and statement_timeout (an append waiting for a
 * conversation's row lock another transaction holds), and exit_on_error
 * (every error ends the session: the server answers FATAL, then closes).
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { outcome, perTest, rowHolder } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

const holdRow = rowHolder();

describe.skipIf(NO_SERVER !== null)("postgres store: errors the role's settings make", () => {
  it("lock_timeout: an append that waits for a row lock fails store-io naming lock_timeout, nothing kept; the next one goes through", async () => {
    const ground = await playground({ lock_timeout: "200" });
    const schema = freshSchema();
    const store = open(ground.url, schema);
    await store.append("c", [rec()]);
    const tx = await holdRow(ground, schema, "c");
    const got = await outcome(store.append("c", [rec()], { expect: 1 }));
    expect(got).toMatchObject({ ok: false, code: "store-io", message: expect.stringContaining("lock_timeout") });
    await tx.query("COMMIT");
    expect(await store.length!("c")).toBe(1);
    expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
  });

  it("statement_timeout: an append that waits too long fails store-io naming statement_timeout, nothing kept; the next one goes through", async () => {
    const ground = await playground({ statement_timeout: "300" });
    const schema = freshSchema();
    const store = open(ground.url, schema);
    await store.append("c", [rec()]);
    const tx = await holdRow(ground, schema, "c");
    const got = await outcome(store.append("c", [rec()], { expect: 1 }));
    expect(got).toMatchObject({ ok: false, code: "store-io", message: expect.stringContaining("statement_timeout") });
    await tx.query("COMMIT");
    expect(await store.length!("c")).toBe(1);
    expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
  });

  it("exit_on_error on a role whose tables were made beforehand: appends, conflicts and reads work", async () => {
    const ground = await playground({ exit_on_error: "on" });
    const schema = freshSchema();
    await open(ground.adminUrl, schema).length!("c"); // made by another role: the store's first read finds them
    await ground.sql(`GRANT USAGE ON SCHEMA "${schema}" TO ${ground.role}`);
    await ground.sql(`GRANT ALL ON ALL TABLES IN SCHEMA "${schema}" TO ${ground.role}`);
    const store = open(ground.url, schema);
    expect(await store.append("c", [rec()], { expect: 0 })).toBe(1);
    expect((await outcome(store.append("c", [rec()], { expect: 0 }))).code).toBe("store-conflict");
    expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
    expect(await store.read("c")).toHaveLength(2);
  });

  // A user expects: a store on a fresh database makes its tables on first use (README "Tables are made on first
  // use"), or fails saying what to change. Before its fix, on a role with exit_on_error = on: the first use asks for
  // the schema's version and takes "no such table" (42P01) as "make them" (schema.ts ensureSchema, ~line 207);
  // with exit_on_error that error is FATAL and the server closes the session, but the client goes back to the
  // pool as healthy (pg-db.ts runOn line 170: any error with a severity counts as the server's answer on a live
  // connection), so the DDL is sent on the closed connection: "Connection terminated unexpectedly ... the
  // operation may be retried". Every later try repeats it (the probe again, the dead client again): the store
  // can never start, and its message sends the user after a network problem that is not there.
  it("exit_on_error on the role: the first use on a fresh schema makes the tables", async () => {
    const ground = await playground({ exit_on_error: "on" });
    const schema = freshSchema();
    const store = open(ground.url, schema);
    const first = await outcome(store.append("c", [rec()]));
    const second = await outcome(store.append("c", [rec()]));
    expect([first, second]).toEqual([
      { ok: true, value: 1 },
      { ok: true, value: 2 },
    ]);
  });
});
