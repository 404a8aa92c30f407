/**
 * `default_transaction_isolation = 'serializable'` on the store's role, with
 * more than two hosts appending to one conversation back to back (a running
 * turn's host, approvals and stops from others). hunt9-gucs-isolation raced
 * two hosts one append each; here each host appends again as soon as its
 * last one is kept.
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { outcome, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

const HOSTS = 6;
const EACH = 20;

describe.skipIf(NO_SERVER !== null)("postgres store: serializable on the role, many hosts appending at once", () => {
  // A user expects: an append without `expect` (a person's approval, a stop) is kept whatever else is appended
  // at once. Before the fix: a statement the server rolled back as a serialization failure (40001) was sent
  // again ten times within a few hundred ms (pg-db.ts resent), but a host appending back to back holds the
  // conversation's row lock most of the time, so an append whose snapshot predates its commit met it again
  // each time: some appends of six hosts failed store-io ("could not serialize access due to concurrent
  // update ... it was sent again several times"), a turn stopped for good though nothing conflicted.
  it("six hosts, twenty appends each without expect: every one is kept", async () => {
    const ground = await playground({ default_transaction_isolation: "serializable" });
    const schema = freshSchema();
    const hosts = Array.from({ length: HOSTS }, () => open(ground.url, schema));
    for (const h of hosts) await h.length!("warm-up");
    const pump = async (h: (typeof hosts)[number], i: number): Promise<Awaited<ReturnType<typeof outcome>>[]> => {
      const got: Awaited<ReturnType<typeof outcome>>[] = [];
      for (let k = 0; k < EACH; k++) got.push(await outcome(h.append("busy", [rec("approval", { i, k })])));
      return got;
    };
    const all = (await Promise.all(hosts.map(pump))).flat();
    expect(all.filter((o) => !o.ok).map((o) => o.message)).toEqual([]);
    expect(await hosts[0]!.length!("busy")).toBe(HOSTS * EACH);
  });
});
