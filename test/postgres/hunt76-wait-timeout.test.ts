/**
 * The Postgres store's `wait` refuses a `timeoutMs` that is not a number
 * (`input-invalid`, the check every store shares): "60000" was coerced into
 * a 60 s wait here (the fs store answered it false at once), `undefined` and
 * `null` looked once, a BigInt threw a TypeError. The documented values
 * (NaN and 0 or less: look once; a number; Infinity) keep working. Real server.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { FunctaiError } from "../../src/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

/** How `p` settled within `ms` (generous: 2 CPUs shared by several test runs): its value, its error, or "pending". */
async function within(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise((r) => (timer = setTimeout(() => r("pending"), ms)));
  try {
    return await Promise.race([
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(NO_SERVER !== null)("on a real PostgreSQL server", () => {
  it("refuses a timeoutMs that is not a number, and keeps the documented ones", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL ?? "" }, { schema });
    try {
      await store.append("c", [rec()]);
      for (const wrong of ["60000", undefined, null, 100n, { ms: 1 }] as unknown[]) {
        const got = await within(store.wait!("c", 1, wrong as number), 5_000);
        expect(got, `timeoutMs ${String(wrong)}`).toMatchObject({ error: expect.any(FunctaiError) });
        expect((got as { error: FunctaiError }).error.code).toBe("input-invalid");
        expect((got as { error: FunctaiError }).error.message).toMatch(/timeoutMs/);
      }
      expect(await store.wait!("c", 1, Number.NaN)).toBe(false);
      expect(await store.wait!("c", 1, -1)).toBe(false);
      expect(await store.wait!("c", 0, 0)).toBe(true);
      expect(await store.wait!("c", 1, 50)).toBe(false);
      const forever = store.wait!("c", 1, Number.POSITIVE_INFINITY);
      await new Promise((r) => setTimeout(r, 200));
      await store.append("c", [rec()]);
      expect(await within(forever, 20_000)).toEqual({ value: true });
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});
