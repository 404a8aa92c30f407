/**
 * Hunt 23: records whose strings hold what PostgreSQL's json operators cannot
 * take apart: a NUL ("\u0000": "cannot be converted to text") or a lone
 * surrogate ("Unicode low surrogate must follow a high surrogate"). A `json`
 * value keeps them as written, and an append alone stores them; but grouped
 * appends (group commit) went in ONE json argument taken apart with `->`,
 * which unescapes every string of the element: the server refused each
 * such group (an ERROR in its log every time), and its appends went again,
 * one round trip each. Every record still lands and reads back as the
 * memory store gives it; no grouped statement is refused.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** A pool that counts the grouped append statements its connections run, and those the server refused. */
function countingPool(max: number): { pool: pg.Pool; count: { grouped: number; refused: string[] } } {
  const pool = new pg.Pool({ connectionString: url, max });
  const count = { grouped: 0, refused: [] as string[] };
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const name = String((args[0] as { name?: unknown } | null)?.name ?? "");
      const answer = query(...args);
      if (name.startsWith("functai.append_many.")) {
        count.grouped++;
        (answer as Promise<unknown>).catch((e: unknown) => count.refused.push(String((e as Error).message)));
      }
      return answer;
    };
  });
  return { pool, count };
}

/** Strings a JSON.stringify writes as escapes that a json operator must unescape. */
const ODD = ["a\u0000b", "\udc00", "x\ud800", "\ud800\ud800", "\ud800y", "\u0000", "ok \u00e9 \ud83d\ude00"];

describe.skipIf(NO_SERVER !== null)("postgresStore: grouped appends of records with NUL characters and lone surrogates", () => {
  it("go in groups the server takes, and read back as the memory store reads them", async () => {
    const schema = freshSchema();
    const { pool, count } = countingPool(5);
    const store = postgresStore({ pool }, { schema });
    const memory = memoryStore();
    try {
      await store.append("warm", [rec()]); // the tables made first: the appends below race each other, not the schema
      const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
      for (let round = 0; round < 3; round++) {
        const batch = (i: number) => [rec("note", { text: ODD[(i + round) % ODD.length], key: { [ODD[i % ODD.length]!]: round } }), rec()];
        const batches = ids.map((_, i) => batch(i));
        const lengths = await Promise.all(ids.map((id, i) => store.append(id, batches[i]!, { expect: 2 * round })));
        expect(lengths).toEqual(ids.map(() => 2 * round + 2));
        for (const [i, id] of ids.entries()) await memory.append(id, batches[i]!);
      }
      expect(count.grouped, "appends went in groups").toBeGreaterThan(0);
      expect(count.refused, "grouped statements the server refused").toEqual([]);
      for (const id of ids) expect(await store.read(id), id).toEqual(await memory.read(id));
    } finally {
      await store.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 20_000);
});
