/**
 * Hunt 30, on a real PostgreSQL server: many stores on one pool of the
 * caller's (a store made per request, or per tenant schema, on an app's one
 * pg.Pool; DESIGN "Many hosts": `{ pool }` is yours to end). Each store
 * listened on the pool for its own sake: from the eleventh on, Node printed
 * a MaxListenersExceededWarning ("possible EventEmitter memory leak") about
 * the caller's pool, though nothing leaked.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

describe.skipIf(NO_SERVER !== null)("many stores on one given pool", () => {
  // Found by hunt 30 (failed before): 12 stores in use at once on one pool: Node warned of a leak on the caller's pool.
  it("twelve stores in use at once: no warning of a listener leak on the pool; each keeps its own records; once all are closed, the pool has the listeners it had", async () => {
    const pool = new pg.Pool({ connectionString: SERVER_URL!, max: 4 });
    const before = { error: pool.listenerCount("error"), connect: pool.listenerCount("connect") };
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    const schemas = Array.from({ length: 12 }, () => freshSchema());
    const stores = schemas.map((schema) => postgresStore({ pool }, { schema }));
    try {
      expect(
        await Promise.all(
          stores.map((s, i) =>
            s.append(
              "c",
              Array.from({ length: i + 1 }, () => rec()),
            ),
          ),
        ),
      ).toEqual(schemas.map((_, i) => i + 1));
      expect(await Promise.all(stores.map((s) => s.length!("c")))).toEqual(schemas.map((_, i) => i + 1));
      await new Promise((r) => setImmediate(r)); // (process warnings are emitted on the next tick)
      expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
      for (const s of stores.slice(0, 6)) await s.close();
      // the stores still open go on: their pool's listeners stay until the last closes
      expect(await stores[11]!.append("c", [rec()])).toBe(13);
      expect(pool.listenerCount("error")).toBeGreaterThan(before.error);
    } finally {
      process.off("warning", onWarning);
      for (const s of stores) await s.close();
      for (const schema of schemas) await dropSchema(schema);
    }
    expect({ error: pool.listenerCount("error"), connect: pool.listenerCount("connect") }).toEqual(before);
    await pool.end();
  }, 60_000);
});
