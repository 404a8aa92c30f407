/**
 * The first use of a fresh schema by several hosts at once (an app deployed
 * on four servers, started together) on a role or database whose
 * default_transaction_isolation is REPEATABLE READ or SERIALIZABLE.
 * hunt9-gucs-isolation made the tables with one host first.
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { outcome, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

/** Rounds of `hosts` stores making one fresh schema at once, each by an append: the messages of those that failed. */
async function firstUses(url: string, hosts: number, rounds: number): Promise<string[]> {
  const failed: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const schema = freshSchema();
    const stores = Array.from({ length: hosts }, () => open(url, schema));
    const got = await Promise.all(stores.map((s, i) => outcome(s.append(`c${i}`, [rec()]))));
    for (const o of got) if (!o.ok) failed.push(String(o.message));
    expect(await stores[0]!.length!("c1")).toBe(got[1]!.ok ? 1 : 0);
  }
  return failed;
}

describe.skipIf(NO_SERVER !== null)("postgres store: first use by several hosts at once, the role's isolation level above read committed", () => {
  // A user expects: several processes using a fresh database at once create the tables once, and every one goes
  // on (schema.ts: the DDL runs under a transaction-level advisory lock for that). Before the fix: the DDL's
  // implicit transaction ran at the role's level; at REPEATABLE READ or SERIALIZABLE its snapshot is taken by the
  // statement that waits for the advisory lock, so a host that waited behind another's DDL did not see the schema
  // it made ("IF NOT EXISTS (SELECT … pg_namespace …)" read the old snapshot) and failed store-io: "could not
  // create its tables in schema …: schema … already exists (see the server's message)" — most hosts of each start.
  it("serializable on the database: four hosts at once, round after round: every first append is kept", async () => {
    const ground = await playground({}, { default_transaction_isolation: "serializable" });
    expect(await firstUses(ground.url, 4, 5)).toEqual([]);
  });

  it("repeatable read on the role: four hosts at once, round after round: every first append is kept", async () => {
    const ground = await playground({ default_transaction_isolation: "repeatable read" });
    expect(await firstUses(ground.url, 4, 5)).toEqual([]);
  });
});
