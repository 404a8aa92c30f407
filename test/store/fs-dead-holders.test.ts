/**
 * Lock holders that are dead but not gone: a process killed while holding a
 * conversation's lock whose parent does not reap it (a shell that went on to
 * `exec` another program, a supervisor that is busy) stays a zombie, and a
 * signal 0 still reaches its pid. Such a holder runs no code: its lock is
 * broken at once, as a gone holder's is.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { parseTarget } from "../../adapters/node-fs/lock.js";
import { rec } from "./contract.js";

const script = fileURLToPath(new URL("./fs-child.ts", import.meta.url));
let dir: string;
let children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-fs-dead-"));
});
afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children = [];
  await rm(dir, { recursive: true, force: true });
});

/** `/proc/<pid>/stat`'s state letter ("Z": a zombie), or undefined when the pid is gone. */
const stateOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
};

describe.skipIf(process.platform !== "linux")("fsStore: a lock whose holder is a zombie", () => {
  it("killed while holding the lock, never reaped by its parent: broken at once, the append lands", async () => {
    await fsStore(dir).append("c", [rec()]);
    // The holder runs under a shell that then becomes `sleep`, which never reaps its children.
    const node = [process.execPath, "--import", "tsx", "--conditions=functai-source", script, "hold", dir, "c"].map((a) => `'${a}'`).join(" ");
    const parent = spawn("sh", ["-c", `${node} & exec sleep 60`], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(parent);
    await new Promise<void>((locked) => {
      let out = "";
      parent.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("locked\n")) locked();
      });
    });
    const lock = join(dir, "conversations", "c.jsonl.lock");
    const pid = parseTarget(await readlink(lock))!.pid;
    process.kill(pid, "SIGKILL");
    for (let i = 0; i < 100 && stateOf(pid) !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
    expect(stateOf(pid)).toBe("Z"); // dead, and still there
    const t0 = Date.now();
    expect(await fsStore(dir, { lockTimeoutMs: 3_000 }).append("c", [rec()], { expect: 1 })).toBe(2);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
