/**
 * The Postgres store's `scan` takes `visit` as it was given: not a function,
 * it failed as a TypeError ("visit is not a function") at the first record,
 * or, on a conversation with nothing after `after`, answered as if all were
 * well, the caller's slip unseen. The fs store refuses it (`input-invalid`),
 * as every check of a store's input does; now so does this one, before any
 * statement. Real server.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { FunctaiError } from "../../src/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

describe.skipIf(NO_SERVER !== null)("on a real PostgreSQL server", () => {
  it("scan with a visit that is not a function is refused, input-invalid, with records or without", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL ?? "" }, { schema });
    try {
      await store.append("c", [rec(), rec()]);
      for (const conversation of ["c", "empty"])
        for (const visit of [undefined, null, "print", { visit: () => undefined }]) {
          const got = await store.scan!(conversation, 0, visit as never).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
          expect(got, `${conversation}, visit ${String(visit)}`).toMatchObject({ error: expect.any(FunctaiError) });
          expect((got as { error: FunctaiError }).error.code).toBe("input-invalid");
          expect((got as { error: FunctaiError }).error.message).toMatch(/visit/);
        }
      const seen: number[] = [];
      expect(await store.scan!("c", 0, (r) => seen.push(r.seq))).toBe(2);
      expect(seen).toEqual([1, 2]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});
