/**
 * Wrong arguments to postgresStore are refused at once, as store-io saying
 * what to give: never a TypeError (not a FunctaiError), and never a
 * "see the server's message" at the first use when no server said anything.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { thrown } from "./server.js";

describe("postgresStore refuses wrong arguments at once", () => {
  it("a pool that is not a pg.Pool (null, undefined, a plain object, a URL string)", () => {
    for (const pool of [null, undefined, {}, "postgres://app:secret@127.0.0.1/db", { connect: 1 }]) {
      const { code, message } = thrown(() => postgresStore({ pool } as never));
      expect(code, JSON.stringify(pool)).toBe("store-io");
      expect(message).toContain("pg.Pool");
      expect(message).not.toContain("secret"); // a URL given as the pool: its password never shown
    }
  });

  it("options that are not an object (null, a string, a number)", () => {
    for (const options of [null, "functai", 5]) {
      const { code, message } = thrown(() => postgresStore({ connectionString: "postgres://x@127.0.0.1/db" }, options as never));
      expect(code, JSON.stringify(options)).toBe("store-io");
      expect(message).toContain("schema");
    }
  });

  it("a statementTimeoutMs that is not a number of milliseconds above 0 (setTimeout's limit at most); one that is, taken", () => {
    for (const statementTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "30000", null]) {
      const { code, message } = thrown(() => postgresStore({ connectionString: "postgres://x@127.0.0.1/db" }, { statementTimeoutMs } as never));
      expect(code, String(statementTimeoutMs)).toBe("store-io");
      expect(message).toContain("statementTimeoutMs");
    }
    for (const statementTimeoutMs of [1, 2_000, 2 ** 31 - 1])
      expect(thrown(() => postgresStore({ connectionString: "postgres://x@127.0.0.1/db" }, { statementTimeoutMs })).code).toBe("none");
  });

  it("the server's own schemas: pg_* and information_schema", () => {
    for (const schema of ["pg_catalog", "pg_x", "information_schema"]) {
      const { code, message } = thrown(() => postgresStore({ connectionString: "postgres://x@127.0.0.1/db" }, { schema }));
      expect(code, schema).toBe("store-io");
      expect(message).toContain("schema name");
    }
  });
});
