/**
 * An fs store keeps conversation files open between appends (up to
 * `openFiles`, 256 by default). A process allowed fewer descriptors than
 * that must not fail its appends once it runs out: the store closes the
 * files it kept and opens once more. Shown in a real child process whose
 * descriptor limit (`ulimit -n`) is below the conversations it writes.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const child = fileURLToPath(new URL("./fs-descriptors-child.ts", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const run = (limit: number, dir: string, count: number, rounds: number) =>
  spawnSync(
    "bash",
    [
      "-c",
      `ulimit -n ${limit} && exec "$0" --import tsx --conditions=functai-source "$@"`,
      process.execPath,
      child,
      dir,
      String(count),
      String(rounds),
    ],
    {
      encoding: "utf8",
      timeout: 60_000,
    },
  );

describe("fsStore out of file descriptors", () => {
  it("closes the files it kept open and goes on: every append lands", () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-fds-"));
    dirs.push(dir);
    const count = 150;
    const out = run(100, dir, count, 3);
    expect(out.stderr).not.toMatch(/EMFILE|store-io/);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout.trim())).toEqual(Array.from({ length: count }, () => 3));
  });

  it("the limit is real: the child could not keep every conversation's file open at once", () => {
    // the same child, told to keep them all, under the same limit, reaches it (the test above is not vacuous)
    const probe = spawnSync(
      "bash",
      [
        "-c",
        `ulimit -n 100 && exec "$0" -e "const fs=require('fs');const fds=[];try{for(let i=0;i<150;i++)fds.push(fs.openSync('/dev/null','r'))}catch(e){console.log(e.code,fds.length)}"`,
        process.execPath,
      ],
      { encoding: "utf8" },
    );
    expect(probe.stdout.trim()).toMatch(/^EMFILE \d+$/);
    expect(Number(probe.stdout.trim().split(" ")[1])).toBeLessThan(150);
  });
});
