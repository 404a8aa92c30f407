/**
 * The Postgres store where `pg` is not installed: the child (bundled with
 * everything but `pg`) runs from a folder with no node_modules above it, so
 * Node's own resolver cannot find `pg`; the same bundle run from inside this
 * package (where `pg` is installed) gets past loading and reaches the network.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const REFUSED = "postgres://app:secret@127.0.0.1:1/app"; // nobody listens on port 1
const outside = mkdtempSync(join(tmpdir(), "functai-no-pg-"));
const inside = fileURLToPath(new URL(`../../node_modules/.cache/functai-no-pg-${process.pid}.mjs`, import.meta.url));
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  rmSync(inside, { force: true });
});

/** The child bundled with everything but `pg` (CommonJS packages inside get a `require`). */
async function bundle(): Promise<string> {
  const outfile = join(outside, "child.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./fixtures/no-pg-child.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    conditions: ["functai-source"],
    external: ["pg"],
    logLevel: "warning",
    banner: { js: "import { createRequire as __functaiRequire } from 'node:module'; const require = __functaiRequire(import.meta.url);" },
  });
  return outfile;
}

type Outcome = { name?: string; code?: string; message?: string; ok?: boolean };
function run(script: string): { direct: Outcome; string: Outcome } {
  const child = spawnSync(process.execPath, [script, REFUSED], { encoding: "utf8", timeout: 60_000 });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim()) as { direct: Outcome; string: Outcome };
}

describe("the Postgres store without the pg package", () => {
  it("fails at first use with package-missing naming pg, both as postgresStore and as a string store; with pg it gets to the network", async () => {
    const script = await bundle();
    expect(() => createRequire(script).resolve("pg")).toThrow(/Cannot find module 'pg'/); // really not there
    const without = run(script);
    for (const use of [without.direct, without.string]) {
      expect(use).toMatchObject({ name: "FunctaiError", code: "package-missing" });
      expect(use.message).toContain("functai/postgres needs the package pg (npm install pg)");
      expect(use.message).toContain("Cannot find package 'pg'");
    }
    copyFileSync(script, inside);
    const withPg = run(inside);
    for (const use of [withPg.direct, withPg.string]) {
      expect(use).toMatchObject({ name: "FunctaiError", code: "store-io" });
      expect(use.message).toContain("connection was refused");
    }
  }, 90_000);
});
