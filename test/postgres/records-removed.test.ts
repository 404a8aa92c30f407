/**
 * A running turn whose conversation lost records it had seen kept (rows
 * deleted or truncated by hand, a restore from an older backup): the turn
 * stops with `store-corrupt` and writes nothing more. Before, its log took
 * the shorter conversation for a torn tail cut away and went on from it:
 * the changing tool ran and the turn's later records (`started`, `done`,
 * its reply, `ended`) landed from seq 1 in a conversation holding no `turn`
 * or `lease` of theirs, and the send answered as if all was kept (found by
 * hunt 9 on a real server).
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { pausedTurn } from "./fixtures/hunt7-edges-desk.js";
import { freshDb } from "./fixtures/hunt9-schema-kit.js";
import { NO_SERVER } from "./server.js";

describe.skipIf(NO_SERVER !== null)("a running turn's records removed under it (real server)", () => {
  for (const [how, sql] of [
    ["its conversation's rows deleted", "DELETE FROM s.batches WHERE conversation = 'sam'; DELETE FROM s.conversations WHERE id = 'sam'"],
    ["the tables truncated", "TRUNCATE s.batches, s.conversations"],
  ] as const)
    it(`${how} while it waits in a reading tool: it stops with store-corrupt before its changing tool runs, and writes nothing`, async () => {
      const db = await freshDb();
      const store = postgresStore({ connectionString: db.url() }, { schema: "s" });
      try {
        const t = await pausedTurn(store, "sam");
        await db.run(sql);
        t.state.open();
        expect(await t.turn).toMatch(/^error store-corrupt: .*sam/s);
        expect(t.state.chargeGate.started).toBe(0);
        expect(await store.read("sam")).toEqual([]);
      } finally {
        await store.close();
        await db.drop();
      }
    }, 20_000);
});
