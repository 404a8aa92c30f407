/**
 * A password given in the connection string's query (pg reads
 * `?password=…`, and `sslpassword`, as it reads the one before the host)
 * is never shown in an error message, as that one is not.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { describeTarget } from "../../adapters/postgres/errors.js";

describe("a password in the connection string's query", () => {
  it("is hidden in the target a message names", () => {
    const target = describeTarget("postgres://app@127.0.0.1:5432/app?sslmode=disable&password=s3cret&sslpassword=k3y");
    expect(target).not.toContain("s3cret");
    expect(target).not.toContain("k3y");
    expect(target).toContain("sslmode=disable"); // the rest stays, to tell what was used
  });

  it("is not in the store-io of a server that refuses the connection", async () => {
    const store = postgresStore({ connectionString: "postgres://app@127.0.0.1:1/app?password=s3cret" });
    let message = "";
    try {
      await store.read("c");
    } catch (e) {
      message = `${(e as { code?: string }).code}: ${(e as Error).message}`;
    }
    await store.close();
    expect(message).toMatch(/^store-io: /);
    expect(message).not.toContain("s3cret");
  });
});
