/**
 * The fs store against hostile files and slow neighbours: each case with the
 * error code it gets, and nothing lost (what was there reads back intact).
 */
import type { ChildProcess } from "node:child_process";
import { appendFile, lstat, mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { codeOf, get, rec } from "./contract.js";
import { spawnChild, type Child } from "./fs-children.js";

let dir: string;
let outside: string;
let children: ChildProcess[] = [];
const file = (id: string): string => join(dir, "conversations", `${id}.jsonl`);
const run = (...args: string[]): Child => {
  const child = spawnChild(args);
  children.push(child.proc);
  return child;
};
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hostile-"));
  outside = await mkdtemp(join(tmpdir(), "functai-outside-"));
  children = [];
});
afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Every way into the file refuses with `code`, and the file's bytes stay as they were. */
async function refusedEverywhere(id: string, code: string, path = file(id)): Promise<void> {
  const before = await readFile(path).catch(() => undefined);
  for (const store of [fsStore(dir), fsStore(dir, { readCacheBytes: 0 })]) {
    for (const call of [() => store.read(id), () => store.length!(id), () => store.scan!(id, 0, () => undefined), () => store.append(id, [rec("late")])]) {
      expect(await codeOf(call)).toBe(code);
    }
  }
  expect(await readFile(path).catch(() => undefined)).toEqual(before);
}

describe("a complete line that does not parse is damage, wherever it is", () => {
  const cases: [string, string][] = [
    ["garbled JSON with its newline", '{"functai_conversation":1,"kind":"no\n'],
    ["NUL bytes then a newline", "\0\0\0\0\n"],
    ["an empty line", "\n"],
    ["a batch line (marked) that does not parse", "{oops \n"],
  ];
  for (const [name, tail] of cases) {
    it(`${name}, as the last line: store-corrupt, never dropped, never overwritten`, async () => {
      const store = fsStore(dir);
      await store.append("c", [rec("one"), rec("two")]);
      await store.append("c", [rec("three")]);
      await store.append("c", [rec("four")]);
      await appendFile(file("c"), tail);
      await refusedEverywhere("c", "store-corrupt");
      // nothing lost: once the damaged line is taken away by hand, the four records are all there
      const text = await readFile(file("c"), "utf8");
      await writeFile(file("c"), text.slice(0, text.length - tail.length));
      expect((await fsStore(dir).read("c")).map((r) => [r.seq, r.kind])).toEqual([[1, "one"], [2, "two"], [3, "three"], [4, "four"]]);
    });
  }

  it("names the line, and says it is damage (not a torn write)", async () => {
    await fsStore(dir).append("c", [rec()]);
    await appendFile(file("c"), "not json\n");
    const error = await fsStore(dir).read("c").catch((e: unknown) => e);
    expect(isFunctaiError(error, "store-corrupt")).toBe(true);
    expect((error as Error).message).toContain(`${file("c")}:2:`);
    expect((error as Error).message).toMatch(/damaged/);
  });

  it("a last line without its newline is still a torn write: ignored, then cut by the next append", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("one")]);
    await appendFile(file("c"), '{"functai_conversation":1,"kind":"half","se');
    expect((await store.read("c")).map((r) => r.seq)).toEqual([1]);
    expect(await store.append("c", [rec("two")], { expect: 1 })).toBe(2);
    expect((await fsStore(dir).read("c")).map((r) => r.kind)).toEqual(["one", "two"]);
  });
});

describe("symbolic links are never followed", () => {
  it("a link where a conversation file should be (pointing outside the store): store-symlink, nothing written outside", async () => {
    await fsStore(dir).append("other", [rec()]); // makes the folder
    const target = join(outside, "victim.jsonl");
    await writeFile(target, "");
    await symlink(target, file("c"));
    await refusedEverywhere("c", "store-symlink", target);
    expect(await readFile(target, "utf8")).toBe("");
    expect(await fsStore(dir).list!()).toEqual(["c", "other"]); // (listed: it is there, refused when used)
  });

  it("a link to a dangling target is refused too (never created through)", async () => {
    await fsStore(dir).append("other", [rec()]);
    const target = join(outside, "made-by-us.jsonl");
    await symlink(target, file("c"));
    expect(await codeOf(() => fsStore(dir).append("c", [rec()]))).toBe("store-symlink");
    await expect(lstat(target)).rejects.toThrow();
  });

  it("a file swapped for a link after the store kept it open: the next append refuses, the kept records are intact", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("one"), rec("two")]);
    const target = join(outside, "victim.jsonl");
    await writeFile(target, "");
    await rename(file("c"), join(outside, "moved.jsonl"));
    await symlink(target, file("c"));
    expect(await codeOf(() => store.append("c", [rec("three")]))).toBe("store-symlink");
    expect(await readFile(target, "utf8")).toBe("");
    const moved = (await readFile(join(outside, "moved.jsonl"), "utf8")).split("\n").filter(Boolean);
    expect(moved.map((l) => JSON.parse(l).kind)).toEqual(["one", "two"]);
  });

  it("a conversations folder that is a link: store-symlink, before anything is written", async () => {
    await mkdir(dir, { recursive: true });
    await symlink(outside, join(dir, "conversations"));
    expect(await codeOf(() => fsStore(dir).append("c", [rec()]))).toBe("store-symlink");
    await expect(lstat(join(outside, "c.jsonl"))).rejects.toThrow();
  });
});

describe("the lock is never held while other code runs", () => {
  it("a child whose tool works 3 s synchronously: another process appends meanwhile, without waiting for it", async () => {
    const child = run("slow-tool", dir, "slow", "3000");
    await child.saw((l) => l === "in tool");
    // A lock kept across the tool would make this give up after 1 s (store-io); it must go through.
    const store = fsStore(dir, { lockTimeoutMs: 1_000 });
    const n = await store.append("slow", [rec("outside")]);
    expect(child.lines).not.toContain("tool done"); // the tool was still working when our append was done
    await child.saw((l) => l.startsWith("outcome "));
    expect(await child.exited).toBe(0);
    const records = await fsStore(dir).read("slow");
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    expect(records.filter((r) => r.kind === "outside")).toEqual([expect.objectContaining({ seq: n })]);
    // the child's `started` record was written (and flushed) before its tool ran, so before ours
    const started = records.find((r) => r.kind === "tool" && get(r, "state") === "started");
    expect(started?.seq).toBeLessThan(n);
  });

  it("a holder that is alive but paused (SIGSTOP) is waited for, then a clear error that never says to delete the lock", async () => {
    await fsStore(dir).append("c", [rec()]);
    const holder = run("hold", dir, "c");
    await holder.saw((l) => l === "locked");
    holder.proc.kill("SIGSTOP");
    try {
      const error = await fsStore(dir, { lockStaleMs: 100, lockTimeoutMs: 400 }).append("c", [rec()]).catch((e: unknown) => e);
      expect(isFunctaiError(error, "store-io")).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(`pid ${holder.proc.pid} on this host`);
      expect(message).toMatch(/alive/);
      expect(message).not.toMatch(/delete|remove|unlink/i);
    } finally {
      holder.proc.kill("SIGKILL");
    }
    await holder.exited;
    // dead now: its lock is broken at once, and nothing was lost meanwhile
    expect(await fsStore(dir, { lockStaleMs: 60_000 }).append("c", [rec()], { expect: 1 })).toBe(2);
  });
});
