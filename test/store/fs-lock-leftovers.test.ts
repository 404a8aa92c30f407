/**
 * What a crash or a person can leave where a conversation's lock goes, and
 * what an append then does: a lock left before a reboot whose pid now
 * belongs to another process is broken (not waited on for ever), and a
 * leftover the store cannot remove ends the append with `store-io` in its
 * time (never an endless loop).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { lstat, lutimes, mkdir, mkdtemp, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { acquire, parseTarget } from "../../adapters/node-fs/lock.js";
import { isFunctaiError } from "../../src/errors.js";
import { codeOf, rec } from "./contract.js";

let dir: string;
let children: ChildProcess[] = [];
const lockOf = (id: string): string => join(dir, "conversations", `${id}.jsonl.lock`);
const hash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 8);
/** The 8 hex digits a process of this host starts its lock tokens with (its pid and start time), as lock.ts makes them. */
const tagOf = (pid: number): string => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return hash(`${pid}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`);
};
/** A process that lives until the test ends (another program that got a dead holder's pid). */
const living = async (): Promise<number> => {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" });
  children.push(child);
  await new Promise((r) => child.once("spawn", r));
  return child.pid!;
};
/** Where this host names itself in its locks (this test's own lock tells). */
const thisHost = async (): Promise<string> => {
  const release = await acquire(lockOf("probe"), { staleMs: 5_000, timeoutMs: 5_000 });
  const holder = parseTarget(await readlink(lockOf("probe")));
  release();
  return holder!.host;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-leftovers-"));
  children = [];
  await fsStore(dir).append("c", [rec()]); // makes the folder
});
afterEach(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

const hasProc = (() => {
  try {
    return readFileSync("/proc/self/stat", "utf8").length > 0;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasProc)("a lock naming a pid that lives (Linux: /proc tells when it started)", () => {
  it("left by a process that died before a reboot, its pid now another program's: broken at once, not waited on for ever", async () => {
    const pid = await living();
    // The dead holder's token: its process began at another time, so its tag is not the living process's.
    const token = `${((Number.parseInt(tagOf(pid), 16) ^ 1) >>> 0).toString(16).padStart(8, "0")}00100000`; // (>>> 0: a tag of 8 hex digits, never a negative number)
    await symlink(`fl1:${pid}:${await thisHost()}:${token}`, lockOf("c"));
    const t0 = Date.now();
    expect(await fsStore(dir, { lockTimeoutMs: 3_000 }).append("c", [rec()], { expect: 1 })).toBe(2);
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it("held by that very process (its token begins with its tag): waited for, never broken", async () => {
    const pid = await living();
    const target = `fl1:${pid}:${await thisHost()}:${tagOf(pid)}00100000`;
    await symlink(target, lockOf("c"));
    const then = new Date(Date.now() - 60_000);
    await lutimes(lockOf("c"), then, then);
    const store = fsStore(dir, { lockStaleMs: 100, lockTimeoutMs: 300 });
    const error = await store.append("c", [rec()]).catch((e: unknown) => e);
    expect(isFunctaiError(error, "store-io")).toBe(true);
    expect((error as Error).message).toContain(`pid ${pid} on this host`);
    expect(await readlink(lockOf("c"))).toBe(target);
    expect(await store.length!("c")).toBe(1);
  });
});

describe("a leftover the store cannot remove where the lock goes", () => {
  it("an old folder there: the append ends with store-io within its timeout (it looped for ever), nothing written", async () => {
    await mkdir(lockOf("c"));
    const then = new Date(Date.now() - 60_000);
    await lutimes(lockOf("c"), then, then);
    const store = fsStore(dir, { lockStaleMs: 100, lockTimeoutMs: 500 });
    const outcome = await Promise.race([
      codeOf(() => store.append("c", [rec()])),
      new Promise<string>((r) => setTimeout(() => r("still waiting after 5 s"), 5_000).unref()),
    ]);
    expect(outcome).toBe("store-io");
    expect((await lstat(lockOf("c"))).isDirectory()).toBe(true); // left for a person to look at
    expect(await store.length!("c")).toBe(1);
  });
});
