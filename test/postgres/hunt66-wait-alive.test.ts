/**
 * Hunt 66: the store's idle connections no longer keep a process alive
 * (hunt66-exit), but a wait under way still does, even one without end
 * (timeout Infinity, which has no timer of its own): a script waiting on a
 * conversation stays up until another process appends, then is woken.
 */
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { child } from "./fixtures/hunt66-child.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);

describe.skipIf(NO_SERVER !== null)("a wait without end keeps its process alive", () => {
  it("a child waiting (timeout Infinity) stays up until another process appends, and is woken true", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const c = await child("hunt66-wait-child.ts", { url: SERVER_URL, schema, conversation: "sam" });
      // its wait is out; a few seconds more, in which nothing happens, and it must still be alive
      await c.said('"waiting"');
      await new Promise((r) => setTimeout(r, 3_000));
      expect(c.exited).toBe(false);
      await store.append("sam", [rec()]);
      const code = await c.ended;
      expect(code).toBe(0);
      expect(c.out).toContain('{"woken":true}');
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 60_000);
});
