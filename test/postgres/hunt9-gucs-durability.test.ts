/**
 * `synchronous_commit` set on the store's role or database (a deployment
 * that relaxed it for its own app's writes): what an append's transaction
 * commits with. Observed at commit itself: a deferred constraint trigger on
 * the store's batches table records `current_setting('synchronous_commit')`
 * as it stands when the transaction commits (after every statement of it,
 * so after any set_config the store's own statement makes).
 */
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { type Playground, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, keep } = perTest();

/** A store of the playground's role, its tables made, with a probe that logs each committed batch's synchronous_commit. */
async function probed(g: Playground, how: "url" | "options" = "url"): Promise<PostgresStore> {
  const schema = freshSchema();
  const url = how === "url" ? g.url : `${g.url}?options=${encodeURIComponent("-c synchronous_commit=off")}`;
  const store = postgresStore({ connectionString: url }, { schema });
  keep(store);
  await store.length!("warm-up"); // makes the tables
  await g.sql(`CREATE TABLE public.commit_log (conversation text, sync text)`);
  await g.sql(`CREATE FUNCTION public.log_commit() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
    BEGIN INSERT INTO public.commit_log VALUES (NEW.conversation, current_setting('synchronous_commit')); RETURN NULL; END $$`);
  await g.sql(`CREATE CONSTRAINT TRIGGER log_commit AFTER INSERT ON "${schema}".batches DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION public.log_commit()`);
  return store;
}

const logged = async (g: Playground, conversation: string): Promise<string[]> =>
  (await g.sql<{ sync: string }>("SELECT sync FROM public.commit_log WHERE conversation = $1", [conversation])).map((r) => r.sync);

describe.skipIf(NO_SERVER !== null)("postgres store: synchronous_commit of the role or database", () => {
  it("on a default role: a durable append commits with synchronous_commit on, a relaxed one with off (the probe sees both)", async () => {
    const ground = await playground();
    const store = await probed(ground);
    await store.append("durable", [rec("tool", { state: "started" })]);
    await store.append("relaxed", [rec("tool", { state: "done" })], { durable: false });
    expect(await logged(ground, "durable")).toEqual(["on"]);
    expect(await logged(ground, "relaxed")).toEqual(["off"]);
  });

  // A user expects: a durable append (a changing tool's `started`, every record before a paid model request)
  // is flushed before it returns (DESIGN "Durability": "a started record is durable (flushed) before a changing
  // tool runs"). Before its fix: the durable append sends no synchronous_commit of its own (only the relaxed one
  // sets it, store.ts RELAXED), so on a role with `ALTER ROLE … SET synchronous_commit = off` it commits without
  // waiting for the WAL flush: a server crash right after can lose the `started` record of a tool that then ran,
  // and the resumed turn runs the changing tool again (a second refund). The store already sets the value per
  // transaction in the same statement; it could set 'on' (or at least not 'off') for durable appends too.
  it("a role with synchronous_commit = off: a durable append still waits for the flush", async () => {
    const ground = await playground({ synchronous_commit: "off" });
    const store = await probed(ground);
    await store.append("refund", [rec("tool", { state: "started", name: "refund" })]);
    expect(await logged(ground, "refund")).toEqual(["on"]);
  });

  // The same through the database (ALTER DATABASE … SET): a deployment's usual place for it. Same cause
  // (store.ts APPEND: nothing set for a durable append).
  it("a database with synchronous_commit = off: a durable append still waits for the flush", async () => {
    const ground = await playground({}, { synchronous_commit: "off" });
    const store = await probed(ground);
    await store.append("by-db", [rec("tool", { state: "started" })]);
    expect(await logged(ground, "by-db")).toEqual(["on"]);
  });

  // The same through a connection string's options (?options=-c synchronous_commit=off). Same cause.
  it("a connection string with options=-c synchronous_commit=off: a durable append still waits for the flush", async () => {
    const ground = await playground();
    const store = await probed(ground, "options");
    await store.append("by-options", [rec("tool", { state: "started" })]);
    expect(await logged(ground, "by-options")).toEqual(["on"]);
  });

  it("a role with synchronous_commit = remote_write: a durable append commits with it (it flushes locally too)", async () => {
    const ground = await playground({ synchronous_commit: "remote_write" });
    const store = await probed(ground);
    await store.append("c", [rec("tool", { state: "started" })]);
    // remote_write (as local, on, remote_apply) waits for the local flush: only off does not
    expect(await logged(ground, "c")).toEqual(["remote_write"]);
  });
});
