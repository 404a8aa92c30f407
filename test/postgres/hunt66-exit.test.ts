/**
 * Hunt 66: a plain Node script on the Postgres store whose turns are all
 * done exits on its own, promptly, without closing anything: the store's
 * idle connections (the pool's, the LISTEN connection, the lock session)
 * never keep the event loop alive while nothing is under way. Checked with
 * a real child process, both for a string store ("postgres://…", resolved
 * through storeAt) and for a store object made by postgresStore({
 * connectionString }). Before the fix, such a script stayed alive 50–80 s.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { bundled, removeBundles } from "../durable/fixtures/spawn.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);

/**
 * Generous: the script's last send resolved, so exiting takes a few ms; a
 * loaded 2-CPU machine may add seconds. The defect kept it alive 50–80 s.
 */
const EXIT_BOUND_MS = 10_000;

/** Runs the child; resolves to what it printed, and how long after its last send it exited (killed at 40 s). */
async function run(config: { mode: "string" | "object"; schema: string; conversation: string; close?: boolean }) {
  const script = await bundled(fileURLToPath(new URL("./fixtures/hunt66-exit-child.ts", import.meta.url)));
  return new Promise<{ out: { done?: number | undefined; answers?: string[]; closed?: boolean }; exitAfterMs: number; code: number | null; err: string }>(
    (resolve, reject) => {
      const c = spawn(process.execPath, [script, JSON.stringify({ ...config, url: SERVER_URL })], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      c.stdout.on("data", (d: Buffer) => (out += d.toString()));
      c.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const timer = setTimeout(() => c.kill("SIGKILL"), 40_000);
      c.on("error", reject);
      c.on("close", (code) => {
        const ended = Date.now();
        clearTimeout(timer);
        const line = out.trim().split("\n").at(-1);
        const parsed = line ? (JSON.parse(line) as { done?: number; answers?: string[]; closed?: boolean }) : {};
        const done = out.includes('"done"') ? (JSON.parse(out.trim().split("\n")[0]!) as { done: number }).done : undefined;
        resolve({ out: { ...parsed, done }, exitAfterMs: done ? ended - done : Number.NaN, code, err });
      });
    },
  );
}

describe.skipIf(NO_SERVER !== null)("a script whose turns are done exits on its own", () => {
  it('a string store "postgres://…": exits within 10 s of its last send, its turns done and journaled', async () => {
    const conversation = `h66-exit-${freshSchema()}`;
    const got = await run({ mode: "string", schema: "functai", conversation });
    expect(got.err).toBe("");
    expect(got.out.answers).toEqual(["one", "two"]);
    expect(got.code).toBe(0);
    expect(got.exitAfterMs).toBeLessThan(EXIT_BOUND_MS);
    const rows = await admin<{ n: number }>("SELECT count(*)::int AS n FROM functai.records WHERE conversation = $1", [conversation]);
    expect(rows[0]!.n).toBeGreaterThan(0);
  }, 60_000);

  it("a store object postgresStore({ connectionString }) never closed: exits within 10 s of its last send", async () => {
    const schema = freshSchema();
    try {
      const got = await run({ mode: "object", schema, conversation: "sam" });
      expect(got.err).toBe("");
      expect(got.out.answers).toEqual(["one", "two"]);
      expect(got.code).toBe(0);
      expect(got.exitAfterMs).toBeLessThan(EXIT_BOUND_MS);
    } finally {
      await dropSchema(schema);
    }
  }, 60_000);

  it("a script that closes its store object after its turns: the close settles (never left unsettled at exit, code 13), then it exits", async () => {
    const schema = freshSchema();
    try {
      const got = await run({ mode: "object", schema, conversation: "sam", close: true });
      expect(got.err).toBe("");
      expect(got.out.closed).toBe(true);
      expect(got.code).toBe(0);
      expect(got.exitAfterMs).toBeLessThan(EXIT_BOUND_MS);
    } finally {
      await dropSchema(schema);
    }
  }, 60_000);
});
