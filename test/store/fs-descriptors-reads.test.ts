/**
 * Reads out of file descriptors: a store keeps conversation files open
 * between appends, and appends that run out close those and open once more
 * (fs-descriptors.test.ts). Reads must do the same: with the process at its
 * limit because of the store's own kept files, a read or a length failed
 * with store-io (EMFILE) where the next append went on. Shown in a child
 * whose descriptor limit (`ulimit -n`) is below the conversations it writes.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const store = fileURLToPath(new URL("../../adapters/node-fs/index.ts", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("fsStore reads out of file descriptors", () => {
  it("read, length and scan close the files the store kept open and go on: each answers", () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-fds-reads-"));
    dirs.push(dir);
    // 200 conversations made first (keeping none open), then each appended to and read at once, under a limit of 100.
    const script = `
      import { fsStore } from ${JSON.stringify(store)};
      const rec = { functai_conversation: 1, kind: "note", at: "2026-12-01T00:00:00.000Z" };
      const maker = fsStore(${JSON.stringify(dir)}, { openFiles: 1 });
      for (let i = 0; i < 200; i++) await maker.append("c" + i, [rec]);
      await maker.close();
      const store = fsStore(${JSON.stringify(dir)});
      const out = [];
      const answer = (p) => p.then((n) => n, (e) => e.code + " " + e.message);
      for (let i = 0; i < 200; i++) {
        await store.append("c" + i, [rec], { expect: 1 });
        out.push(await answer(store.read("c" + i).then((r) => r.length)));
        out.push(await answer(store.length("c" + i)));
        out.push(await answer(store.scan("c" + i, 0, () => {})));
      }
      console.log(JSON.stringify(out.filter((x) => x !== 2)));
    `;
    const run = spawnSync(
      "bash",
      ["-c", `ulimit -n 100 && exec "$0" --import tsx --conditions=functai-source --input-type=module -e "$1"`, process.execPath, script],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout.trim())).toEqual([]);
  });
});
