import { describe, expect, it } from "vitest";
import pg from "pg";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { codeOf, rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** A pool that counts the append statements its connections run: alone, grouped (several appends in one), and grouped ones refused. */
function countingPool(max: number): { pool: pg.Pool; count: { alone: number; grouped: number; groupsRefused: number; readsGrouped: number } } {
  const pool = new pg.Pool({ connectionString: url, max });
  const count = { alone: 0, grouped: 0, groupsRefused: 0, readsGrouped: 0 };
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const name = String((args[0] as { name?: unknown } | null)?.name ?? "");
      if (name.startsWith("functai.append_many.")) {
        count.grouped++;
        const answer = query(...args) as Promise<unknown>;
        answer.catch(() => count.groupsRefused++);
        return answer;
      }
      if (name.startsWith("functai.append.")) count.alone++;
      if (name.startsWith("functai.read_many.")) count.readsGrouped++;
      return query(...args);
    };
  });
  return { pool, count };
}

/** Runs `body` on a fresh schema's store over a counting pool of 5 (tables made first), then cleans up. */
async function onStore(body: (t: { store: PostgresStore; count: ReturnType<typeof countingPool>["count"]; schema: string }) => Promise<void>) {
  const schema = freshSchema();
  const { pool, count } = countingPool(5);
  const store = postgresStore({ pool }, { schema });
  try {
    await store.append("warm", [rec()]); // the tables made first: the appends below race each other, not the schema
    await body({ store, count, schema });
  } finally {
    await store.close();
    await pool.end();
    await dropSchema(schema);
  }
}

describe.skipIf(NO_SERVER !== null)("group commit on a real PostgreSQL server", () => {
  it("appends of many conversations at once share statements, and each lands once, at its own length", () =>
    onStore(async ({ store, count }) => {
      const ids = Array.from({ length: 40 }, (_, i) => `c${i}`);
      for (let round = 0; round < 3; round++) {
        const lengths = await Promise.all(ids.map((id, i) => store.append(id, [rec("x", { i, round }), rec("y")], { expect: 2 * round })));
        expect(lengths).toEqual(ids.map(() => 2 * round + 2));
      }
      // fewer statements than appends: they went in groups (the first alone, the rest while it was out)
      expect(count.grouped).toBeGreaterThan(0);
      expect(count.alone + count.grouped).toBeLessThan(1 + 3 * ids.length);
      for (const [i, id] of ids.entries()) {
        const records = await store.read(id);
        expect(records.map((r) => [r.seq, r.kind, (r as { i?: unknown }).i ?? null])).toEqual([
          [1, "x", i],
          [2, "y", null],
          [3, "x", i],
          [4, "y", null],
          [5, "x", i],
          [6, "y", null],
        ]);
      }
    }));

  it("an append of a group that finds another length fails alone (store-conflict); the others of its group land", () =>
    onStore(async ({ store, count }) => {
      const ids = Array.from({ length: 12 }, (_, i) => `c${i}`);
      await Promise.all(ids.map((id) => store.append(id, [rec()])));
      const grouped = count.grouped;
      const outcomes = await Promise.all(
        ids.map((id, i) => (i === 5 ? codeOf(() => store.append(id, [rec()], { expect: 0 })) : store.append(id, [rec()], { expect: 1 }))),
      );
      expect(count.grouped).toBeGreaterThan(grouped);
      expect(outcomes).toEqual(ids.map((_, i) => (i === 5 ? "store-conflict" : 2)));
      expect(await Promise.all(ids.map(async (id) => (await store.read(id)).length))).toEqual(ids.map((_, i) => (i === 5 ? 1 : 2)));
    }));

  it("an append the server refuses does not take its group down: it fails alone with its error, the others land once", () =>
    onStore(async ({ store, count, schema }) => {
      // the server refuses any batch of conversation "bad" (as it would a row it cannot take)
      await admin(`CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.conversation = 'bad' THEN RAISE EXCEPTION 'no rows for bad here'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".batches FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse()`);
      const ids = ["a", "b", "c", "bad", "d", "e", "f", "g"]; // (the first two go alone, while nothing else is out)
      for (let round = 0; round < 3; round++) {
        const outcomes = await Promise.all(
          ids.map((id) =>
            store.append(id, [rec("x", { round })]).then(
              (length) => length,
              (e: { code?: string; message?: string }) => `${e.code}: ${/no rows for bad here/.test(String(e.message))}`,
            ),
          ),
        );
        expect(outcomes).toEqual(ids.map((id) => (id === "bad" ? "store-io: true" : round + 1)));
      }
      expect(count.groupsRefused).toBe(3); // each round's refusal came from a group, whose appends then went one by one
      expect(await Promise.all(ids.map(async (id) => (await store.read(id)).length))).toEqual(ids.map((id) => (id === "bad" ? 0 : 3)));
    }));

  it("two hosts' groups on the same conversations never wait on each other in a circle: no group is refused, every append lands", async () => {
    const schema = freshSchema();
    const hosts = [countingPool(5), countingPool(5)];
    const stores = hosts.map(({ pool }) => postgresStore({ pool }, { schema }));
    try {
      await stores[0]!.append("warm", [rec()]);
      const ids = Array.from({ length: 30 }, (_, i) => `c${String(i).padStart(2, "0")}`);
      const orders = [ids, [...ids].reverse()]; // each host appends in its own order: the rows' locks are taken in the group's
      for (let round = 0; round < 5; round++)
        await Promise.all(stores.flatMap((store, h) => orders[h]!.map((id) => store.append(id, [rec("x", { h, round })]))));
      expect(hosts.map(({ count }) => count.grouped).every((n) => n > 0)).toBe(true);
      expect(hosts.map(({ count }) => count.groupsRefused)).toEqual([0, 0]); // (a deadlock would refuse a group: 40P01)
      expect(await Promise.all(ids.map(async (id) => (await stores[0]!.read(id)).length))).toEqual(ids.map(() => 10));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await Promise.all(hosts.map(({ pool }) => pool.end()));
      await dropSchema(schema);
    }
  });

  it("reads of many conversations at once share statements; each gets its own records, an empty one none", () =>
    onStore(async ({ store, count }) => {
      const ids = Array.from({ length: 24 }, (_, i) => `r${i}`);
      // conversation i holds i % 4 batches of two records (every fourth none at all)
      for (let b = 1; b <= 3; b++) await Promise.all(ids.map((id, i) => (i % 4 >= b ? store.append(id, [rec("x", { i, b }), rec("y")]) : null)));
      const afters = ids.map((_, i) => (i % 3 === 0 ? 0 : 1)); // some from the start, some after the first record
      const read = await Promise.all(ids.map((id, i) => store.read(id, afters[i])));
      expect(count.readsGrouped).toBeGreaterThan(0);
      read.forEach((records, i) => {
        const all = Array.from({ length: i % 4 }, (_, k) => [
          [2 * k + 1, "x", i],
          [2 * k + 2, "y", null],
        ]).flat();
        expect(
          records.map((r) => [r.seq, r.kind, (r as { i?: unknown }).i ?? null]),
          ids[i],
        ).toEqual(all.filter(([seq]) => (seq as number) > afters[i]!));
      });
    }));

  it("an append told durable: false commits without waiting for its flush, for its own transaction only; grouped with a durable one, it waits", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 1 }); // one connection: a setting left on it would show below
    const names: string[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const name = (args[0] as { name?: unknown } | null)?.name;
        if (typeof name === "string") names.push(name.slice(0, name.lastIndexOf(".")));
        return query(...args);
      };
    });
    const store = postgresStore({ pool }, { schema });
    const other = postgresStore({ connectionString: url }, { schema });
    const setting = async () => (await pool.query("SELECT current_setting('synchronous_commit') AS s")).rows[0].s;
    try {
      await store.append("c", [rec("x", { i: 1 })]);
      expect(await store.append("c", [rec("x", { i: 2 })], { durable: false, expect: 1 })).toBe(2);
      expect((await other.read("c")).map((r) => (r as { i?: unknown }).i)).toEqual([1, 2]); // committed: every session reads it
      expect(await setting()).toBe("on"); // the connection's own setting is untouched
      expect(names.filter((n) => n.startsWith("functai.append")).slice(-2)).toEqual(["functai.append", "functai.append_relaxed"]);

      // while both of the store's statements are out (a, a2), a relaxed and a durable append go together: the group waits for the flush
      await Promise.all([store.append("a", [rec()]), store.append("a2", [rec()]), store.append("b", [rec()], { durable: false }), store.append("d", [rec()])]);
      expect(names.filter((n) => n.startsWith("functai.append_many"))).toEqual(["functai.append_many"]);
      // a group of relaxed ones only is relaxed
      await Promise.all([store.append("e", [rec()]), store.append("e2", [rec()]), store.append("f", [rec()], { durable: false }), store.append("g", [rec()], { durable: false })]);
      expect(names.filter((n) => n.startsWith("functai.append_many"))).toEqual(["functai.append_many", "functai.append_many_relaxed"]);
      expect(await setting()).toBe("on");
      const ids = ["a", "a2", "b", "d", "e", "e2", "f", "g"];
      expect(await Promise.all(ids.map(async (id) => (await other.read(id)).length))).toEqual(ids.map(() => 1));
    } finally {
      await store.close();
      await other.close();
      await pool.end();
      await dropSchema(schema);
    }
  });
});
