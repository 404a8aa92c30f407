/**
 * `default_transaction_isolation` set to repeatable read or serializable on
 * the store's role or database (some deployments make every transaction
 * serializable). An append is one statement, so its own transaction, at
 * that level: appends racing on one conversation from two hosts.
 */
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { type Playground, outcome, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, keep } = perTest();

/** Two stores (two hosts) of the playground's role on one schema, its tables made. */
async function twoHosts(g: Playground): Promise<[PostgresStore, PostgresStore]> {
  const schema = freshSchema();
  const a = postgresStore({ connectionString: g.url }, { schema });
  const b = postgresStore({ connectionString: g.url }, { schema });
  keep(a, b);
  await a.length!("warm-up");
  await b.length!("warm-up");
  return [a, b];
}

/** Rounds of one append from each host to one conversation at once, without expect (both must be kept): their outcomes. */
async function unconditional(a: PostgresStore, b: PostgresStore, rounds: number): Promise<Awaited<ReturnType<typeof outcome>>[]> {
  const all: Awaited<ReturnType<typeof outcome>>[] = [];
  for (let i = 0; i < rounds; i++) {
    const conversation = `busy-${i}`;
    await a.append(conversation, [rec("turn")]);
    all.push(
      ...(await Promise.all([
        outcome(a.append(conversation, [rec("approval", { i, by: "a" })])),
        outcome(b.append(conversation, [rec("approval", { i, by: "b" })])),
      ])),
    );
  }
  return all;
}

/** The total length of the conversations `unconditional` wrote. */
async function lengths(store: PostgresStore, rounds: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < rounds; i++) total += await store.length!(`busy-${i}`);
  return total;
}

/** Rounds of two hosts appending with the same expect at once: the losers' error codes. */
async function racingExpect(a: PostgresStore, b: PostgresStore, rounds: number): Promise<{ wins: number; losers: string[] }> {
  let wins = 0;
  const losers: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const conversation = `race-${i}`;
    await a.append(conversation, [rec("turn")]);
    const got = await Promise.all([
      outcome(a.append(conversation, [rec("lease", { by: "a" })], { expect: 1 })),
      outcome(b.append(conversation, [rec("lease", { by: "b" })], { expect: 1 })),
    ]);
    wins += got.filter((o) => o.ok).length;
    for (const o of got) if (!o.ok) losers.push(String(o.code));
  }
  return { wins, losers };
}

describe.skipIf(NO_SERVER !== null)("postgres store: default_transaction_isolation of the role or database", () => {
  it("read committed (the default): appends of two hosts at once to one conversation are all kept", async () => {
    const ground = await playground();
    const [a, b] = await twoHosts(ground);
    const got = await unconditional(a, b, 15);
    expect(got.filter((o) => !o.ok)).toEqual([]);
    expect(await lengths(a, 15)).toBe(45);
    const race = await racingExpect(a, b, 15);
    expect(race.wins).toBe(15);
    expect(new Set(race.losers)).toEqual(new Set(["store-conflict"]));
  });

  // A user expects: appends without `expect` (an approval, a stop, a head from another host) are kept whatever
  // else is appended at once: the append function takes the conversation's row lock and compares again
  // (schema.ts appendFunction). Before its fix, on a role with default_transaction_isolation = 'repeatable read':
  // the UPDATE of a row another host's append changed after the statement's snapshot fails with 40001 ("could
  // not serialize access due to concurrent update"), which the store passes on as store-io ("see the server's
  // message"): a person's approval fails though nothing conflicted. The append runs at the role's level
  // (store.ts APPEND: no isolation level of its own, no retry of 40001).
  it("repeatable read on the role: appends of two hosts at once to one conversation are all kept", async () => {
    const ground = await playground({ default_transaction_isolation: "repeatable read" });
    const [a, b] = await twoHosts(ground);
    const got = await unconditional(a, b, 15);
    expect(got.filter((o) => !o.ok).map((o) => o.message)).toEqual([]);
    expect(await lengths(a, 15)).toBe(45);
  });

  // A user expects: of two appends with the same `expect`, one wins and the other is store-conflict (the store
  // contract; it is how a claim, a lease renewal or an answer learns another host went first, and what the engine
  // retries on). Before its fix, on a database with default_transaction_isolation = 'serializable': the loser
  // fails store-io (40001 serialization failure) instead, an error the engine does not read as "another writer
  // went first". Same cause (store.ts APPEND; schema.ts appendFunction's UPDATE and INSERT … ON CONFLICT).
  it("serializable on the database: of two appends with the same expect, the loser is store-conflict", async () => {
    const ground = await playground({}, { default_transaction_isolation: "serializable" });
    const [a, b] = await twoHosts(ground);
    const race = await racingExpect(a, b, 15);
    expect(race.wins).toBe(15);
    expect(race.losers.filter((c) => c !== "store-conflict")).toEqual([]);
  });
});
