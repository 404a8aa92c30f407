/**
 * Hunt: a process paused (a real SIGSTOP, at an exact moment) inside the
 * file store's cross-process lock code, with other processes appending to
 * the same conversation. Nothing acknowledged may be lost, overwritten or
 * misread, and no lock whose holder lives may be broken.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, lutimesSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { type Child, start, until } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const note = (who: string) => ({ functai_conversation: 1 as const, kind: "note", at: new Date().toISOString(), who });
const STALE_MS = 200;

describe("a breaker paused while it holds the .break lock (file store, real SIGSTOP)", () => {
  // P finds a dead lock and takes `.break` to remove it, then pauses longer than lockStaleMs just before the
  // unlink. Q took `.break` from P by its age alone (P lives), broke the dead lock and took the conversation's
  // lock. P wakes and removes Q's live lock, so both hold it at once.
  it("the breaker's .break is not taken from it while it lives: the two appends both keep their records, with lengths 2 and 3", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt2-"));
    const lock = join(dir, "conversations", "c.jsonl.lock");
    await fsStore(dir).append("c", [note("first")]);
    symlinkSync("left-by-nobody", lock); // a lock naming no holder, older than lockStaleMs: breakable
    lutimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const children: Child[] = [];
    try {
      const p = await start("hunt2-lock-child.ts", { dir, conversation: "c", who: "P", pauseAt: "break-unlink", lockStaleMs: STALE_MS });
      children.push(p);
      await p.line((l) => l.paused === "break-unlink");
      await until("P is stopped", () => p.stopped());
      await until("P's .break is older than lockStaleMs", () => Date.now() - lstatSync(`${lock}.break`).mtimeMs > STALE_MS * 2);
      const q = await start("hunt2-lock-child.ts", { dir, conversation: "c", who: "Q", pauseAt: "write", lockStaleMs: STALE_MS });
      children.push(q);
      // Q either gets into the lock (and pauses before its write), or keeps finding P's break at work
      await q.line((l) => l.paused === "write" || (typeof l.busy === "number" && l.busy >= 3));
      p.proc.kill("SIGCONT");
      const endP = await p.line((l) => "ok" in l || "error" in l);
      await q.line((l) => l.paused === "write"); // (at once, or once P let the lock go)
      await until("Q is stopped", () => q.stopped());
      q.proc.kill("SIGCONT");
      const endQ = await q.line((l) => "ok" in l || "error" in l);
      expect([endP, endQ].map((e) => e.ok).sort()).toEqual([2, 3]); // each append got a length of its own
      const records = await fsStore(dir).read("c");
      expect(records.map((r) => (r as { who?: string }).who).sort()).toEqual(["P", "Q", "first"]);
      expect(readFileSync(join(dir, "conversations", "c.jsonl"), "utf8").split("\n")).toHaveLength(4);
      expect(existsSync(lock)).toBe(false);
    } finally {
      for (const c of children) c.kill();
    }
  });
});

describe("a breaker that died while it held the .break lock (file store)", () => {
  it("its .break, once older than lockStaleMs, is removed as before: the dead lock is broken and the append goes on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt2-"));
    const lock = join(dir, "conversations", "c.jsonl.lock");
    await fsStore(dir).append("c", [note("first")]);
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout; // gone now
    const host = createHash("sha256").update(`${hostname()}\0${readlinkSync("/proc/self/ns/pid")}`).digest("hex").slice(0, 8);
    symlinkSync("left-by-nobody", lock);
    symlinkSync(`fl1:${dead}:${host}:0123456789abcdef`, `${lock}.break`);
    const old = new Date(Date.now() - 60_000);
    for (const f of [lock, `${lock}.break`]) lutimesSync(f, old, old);
    expect(await fsStore(dir, { lockStaleMs: STALE_MS, lockTimeoutMs: 5_000 }).append("c", [note("after")], { expect: 1 })).toBe(2);
    expect(existsSync(`${lock}.break`)).toBe(false);
  });
});
