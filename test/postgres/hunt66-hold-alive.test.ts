/**
 * Hunt 66: the store's idle connections no longer keep a process alive
 * (hunt66-exit), but a lock session that holds a running turn's lock does:
 * a script holding a turn, with nothing else under way, stays up (its lock
 * held, as another store sees) until it lets the turn go.
 */
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { child } from "./fixtures/hunt66-child.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);

describe.skipIf(NO_SERVER !== null)("a held turn's lock session keeps its process alive", () => {
  it("a child holding a turn stays up while it holds it (seen held from another store), and exits once it lets go", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const c = await child("hunt66-hold-child.ts", { url: SERVER_URL, schema, conversation: "sam", turn: "t1", releaseAfterMs: 4_000 });
      await c.said('"held"');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(c.exited).toBe(false);
      expect(await store.liveness!.isHeld("sam", "t1")).toBe(true);
      const code = await c.ended;
      expect(code).toBe(0);
      expect(c.out).toContain('{"released":true}');
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 60_000);
});
