/**
 * What an append writes is what a read gives back: a record that is not
 * JSON (a BigInt, a cycle) is refused as input-invalid before anything is
 * written, and one whose toJSON makes it something other than an object
 * is refused too (written, it left the whole conversation unreadable).
 * A NUL in a string (which jsonb refuses; the batches are json) round-trips.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

async function codeOfCall(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "none";
  } catch (e) {
    return String((e as { code?: unknown }).code);
  }
}

describe.skipIf(NO_SERVER !== null)("postgresStore: records that are not plain JSON objects", () => {
  it("refuses a BigInt, a cycle, or a toJSON that is no object, as input-invalid, and the conversation stays readable", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    expect(await store.append("c", [rec()])).toBe(1);
    const cyclic: Record<string, unknown> = { ...rec() };
    cyclic["self"] = cyclic;
    const bad: object[] = [
      { ...rec(), n: 1n },
      cyclic,
      { ...rec(), toJSON: () => "a string" },
      { ...rec(), toJSON: () => undefined },
      { ...rec(), toJSON: () => [1, 2] },
    ];
    for (const [i, record] of bad.entries()) expect(await codeOfCall(store.append("c", [rec(), record])), `bad record ${i}`).toBe("input-invalid");
    expect(await store.length!("c")).toBe(1);
    expect((await store.read("c")).map((r) => r.seq)).toEqual([1]);
    await store.close();
    await dropSchema(schema);
  }, 30_000);

  it("keeps a NUL character and a lone surrogate in a string as they were", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    expect(await store.append("c", [{ ...rec(), text: "a\u0000b" }, { ...rec(), text: "x\ud800y" }])).toBe(2);
    expect((await store.read("c")).map((r) => (r as unknown as { text: string }).text)).toEqual(["a\u0000b", "x\ud800y"]);
    await store.close();
    await dropSchema(schema);
  }, 30_000);
});

describe.skipIf(NO_SERVER !== null)("postgresStore: rows changed by hand", () => {
  it("a damaged batch is store-io saying the rows are damaged, not pointing at a server message there is none of", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    expect(await store.append("c", [rec()])).toBe(1);
    await admin(`INSERT INTO "${schema}".batches (conversation, last, first, records) VALUES ('c', 2, 2, '[7]'::json)`);
    await admin(`UPDATE "${schema}".conversations SET length = 2 WHERE id = 'c'`);
    let message = "";
    try {
      await store.read("c");
    } catch (e) {
      expect((e as { code?: unknown }).code).toBe("store-io");
      message = String((e as Error).message);
    }
    expect(message).toContain("record 2 of c is not an object");
    expect(message).toContain("damaged");
    expect(message).not.toContain("server's message");
    await store.close();
    await dropSchema(schema);
  }, 30_000);
});
