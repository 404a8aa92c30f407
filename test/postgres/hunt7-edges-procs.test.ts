/**
 * Hunt 7, on a real PostgreSQL server, with real child processes: eight
 * processes opening one fresh schema at the same moment, and a schema whose
 * version row was set back by hand being migrated by several processes at
 * once while another process (already using it) appends. README ("Many
 * hosts: PostgreSQL": "several processes starting at once make them once",
 * a version "so a later release can migrate them"; an append is one
 * statement, all or none) and schema.ts's `ddl` (one implicit transaction
 * under a transaction-level advisory lock; every statement may run again).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION, postgresStore } from "../../adapters/postgres/index.js";
import { bundled, removeBundles } from "../durable/fixtures/spawn.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);

interface ChildOut {
  lengths?: number[];
  error?: string;
  message?: string;
}

/** Starts one hunt7-edges-child.ts process; resolves to the JSON line it printed (or why it printed none). */
async function child(config: { schema: string; goAt: number; conversations: string[]; count: number; tag: string }): Promise<ChildOut> {
  const script = await bundled(fileURLToPath(new URL("./fixtures/hunt7-edges-child.ts", import.meta.url)));
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [script, JSON.stringify({ ...config, url: SERVER_URL })], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    c.stdout.on("data", (d: Buffer) => (out += d.toString()));
    c.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => c.kill("SIGKILL"), 25_000);
    c.on("error", reject);
    c.on("close", (code) => {
      clearTimeout(timer);
      const line = out.trim().split("\n").at(-1);
      resolve(line ? (JSON.parse(line) as ChildOut) : { error: `no output (exit ${code})`, message: err });
    });
  });
}

/** The seqs of a conversation's records and who wrote each, as the database holds them. */
const held = (schema: string, conversation: string) =>
  admin<{ seq: number; by: string | null; i: number | null }>(
    `SELECT seq, record->>'by' AS by, (record->>'i')::int AS i FROM "${schema}".records WHERE conversation = $1 ORDER BY seq`,
    [conversation],
  );

describe.skipIf(NO_SERVER !== null)("processes opening and migrating one schema at once", () => {
  it("eight processes open a fresh schema at the same moment: each appends from the first try; the tables are made once, at this version", async () => {
    const schema = freshSchema();
    try {
      const goAt = Date.now() + 2_500; // every child has started and opened its store by then
      const outs = await Promise.all(
        Array.from({ length: 8 }, (_, k) => child({ schema, goAt, conversations: [`own-${k}`, "shared"], count: 3, tag: `p${k}` })),
      );
      for (const o of outs) expect(o.error, o.message).toBeUndefined();
      for (const o of outs) expect(o.lengths!.filter((_, j) => j % 2 === 0)).toEqual([1, 2, 3]); // its own conversation
      const shared = outs.flatMap((o) => o.lengths!.filter((_, j) => j % 2 === 1));
      expect(shared.sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, j) => j + 1));
      const rows = await held(schema, "shared");
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 24 }, (_, j) => j + 1));
      for (let k = 0; k < 8; k++) expect(rows.filter((r) => r.by === `p${k}`).map((r) => r.i)).toEqual([0, 1, 2]); // each process's in its order
      expect(await admin(`SELECT key, value FROM "${schema}".meta`)).toEqual([{ key: "schema_version", value: String(SCHEMA_VERSION) }]);
      const fns = await admin<{ args: string }>(
        `SELECT pg_get_function_identity_arguments(p.oid) AS args FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'append' ORDER BY 1`,
        [schema],
      );
      expect(fns.length).toBe(2); // this release's append and version 4's signature
    } finally {
      await dropSchema(schema);
    }
  }, 30_000);

  it("a schema set back to version 3 by hand is migrated by six processes at once while this process, already using it, appends: every append lands once, in order", async () => {
    const schema = freshSchema();
    const here = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await here.append("shared", [rec("start")])).toBe(1);
      await admin(`UPDATE "${schema}".meta SET value = '3' WHERE key = 'schema_version'`);
      const goAt = Date.now() + 2_500;
      const children = Promise.all(Array.from({ length: 6 }, (_, k) => child({ schema, goAt, conversations: ["shared"], count: 4, tag: `m${k}` })));
      // this process appends with an expected length the whole time the children start, migrate and append
      const mine: number[] = [];
      let stop = false;
      const appending = (async () => {
        for (let i = 0; !stop || i < 3; i++) {
          for (;;) {
            const at = await here.length!("shared");
            try {
              mine.push(await here.append("shared", [rec("here", { by: "here", i })], { expect: at }));
              break;
            } catch (e) {
              if ((e as { code?: string }).code !== "store-conflict") throw e;
            }
          }
        }
      })();
      const outs = await children;
      stop = true;
      await appending;
      for (const o of outs) expect(o.error, o.message).toBeUndefined();
      const total = 1 + 6 * 4 + mine.length;
      const lengths = [...outs.flatMap((o) => o.lengths!), ...mine].sort((a, b) => a - b);
      expect(lengths).toEqual(Array.from({ length: total - 1 }, (_, j) => j + 2)); // each length answered once
      const rows = await held(schema, "shared");
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, j) => j + 1));
      for (let k = 0; k < 6; k++) expect(rows.filter((r) => r.by === `m${k}`).map((r) => r.i)).toEqual([0, 1, 2, 3]);
      expect(rows.filter((r) => r.by === "here").map((r) => r.i)).toEqual(mine.map((_, i) => i));
      expect(await admin(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).toEqual([{ value: String(SCHEMA_VERSION) }]);
      expect(await here.read("shared", total - 1)).toHaveLength(1);
    } finally {
      await here.close();
      await dropSchema(schema);
    }
  }, 30_000);
});
