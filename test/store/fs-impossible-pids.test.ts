/**
 * Pids no process can have (0, which signal 0 reads as "my process group",
 * and numbers past what kill(2) takes) in a lock or a lease: they name no
 * running process, so the lock is broken and the lease's holder is gone,
 * never taken as alive for ever.
 */
import { mkdtemp, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { acquire, parseTarget } from "../../adapters/node-fs/lock.js";
import { processes } from "../../runtime/processes.node.js";
import { rec } from "./contract.js";

let dir: string;
const lockOf = (id: string): string => join(dir, "conversations", `${id}.jsonl.lock`);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-pids-"));
  await fsStore(dir).append("c", [rec()]); // makes the folder
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a lock naming a pid past what kill(2) takes", () => {
  for (const pid of [2 ** 31, 2 ** 32 - 1, 9_999_999_999]) {
    it(`pid ${pid}: broken at once, not waited on until the append gives up`, async () => {
      const release = await acquire(lockOf("probe"), { staleMs: 5_000, timeoutMs: 5_000 });
      const host = parseTarget(await readlink(lockOf("probe")))!.host;
      release();
      await symlink(`fl1:${pid}:${host}:0123456789abcdef`, lockOf("c"));
      expect(parseTarget(await readlink(lockOf("c")))?.pid).toBe(pid); // read as a holder: only whether it lives is asked
      const t0 = Date.now();
      expect(await fsStore(dir, { lockTimeoutMs: 2_000 }).append("c", [rec()], { expect: 1 })).toBe(2);
      expect(Date.now() - t0).toBeLessThan(1_000);
    });
  }
});

describe("processes.runs (a lease's holder)", () => {
  it("this process runs; a pid no process can have does not (0 is the caller's process group to kill(2))", () => {
    expect(processes.runs(process.pid, processes.self.start)).toBe(true);
    for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 31, 2 ** 32 - 1, 9_999_999_999]) expect(processes.runs(pid, ""), String(pid)).toBe(false);
  });
});
