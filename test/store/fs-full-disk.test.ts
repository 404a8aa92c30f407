/**
 * The fs store on a full disk (simulated: the file system's write fails with
 * ENOSPC part way, as a full disk or a quota makes it): the append fails with
 * store-io saying so, nothing of its batch stays in the file, and once there
 * is room again the next append goes on from where the file was.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// The store's writes go through this module: a test can make the disk full.
let full: { after: number } | undefined;
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const writeSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
    if (full !== undefined) {
      // Some bytes fit, then the disk is full (the next write call fails).
      if (full.after <= 0) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
      const n = Math.min(length, full.after);
      full.after -= n;
      return real.writeSync(fd, buffer, offset, n, position);
    }
    return real.writeSync(fd, buffer, offset, length, position);
  }) as typeof real.writeSync;
  return { ...real, writeSync, default: { ...real, writeSync } };
});

const { fsStore } = await import("../../adapters/node-fs/index.js");
const { isFunctaiError } = await import("../../src/errors.js");
const { rec } = await import("./contract.js");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-full-"));
  full = undefined;
});
afterEach(async () => {
  full = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe("fsStore: the disk fills up mid-append", () => {
  it("store-io says no space, nothing of the batch stays, and the next append (with room again) goes on from there", async () => {
    const store = fsStore(dir);
    expect(await store.append("sam", [rec("kept")])).toBe(1);
    const file = join(dir, "conversations", "sam.jsonl");
    const before = await readFile(file, "utf8");
    full = { after: 10 };
    const e = await store.append("sam", [rec("a"), rec("b".repeat(1000))], { expect: 1 }).then(() => undefined, (x: unknown) => x);
    expect(isFunctaiError(e, "store-io")).toBe(true);
    expect((e as Error).message).toMatch(/no space left/);
    expect(await readFile(file, "utf8")).toBe(before);
    full = undefined;
    expect(await store.read("sam")).toHaveLength(1);
    const other = fsStore(dir);
    expect(await other.length!("sam")).toBe(1);
    expect(await store.append("sam", [rec("after")], { expect: 1 })).toBe(2);
    expect((await other.read("sam")).map((r) => r.seq)).toEqual([1, 2]);
    await store.close!();
    await other.close!();
  });

  it("a first append that finds no room leaves no conversation behind", async () => {
    const store = fsStore(dir);
    full = { after: 0 };
    const e = await store.append("kim", [rec("a")]).then(() => undefined, (x: unknown) => x);
    expect(isFunctaiError(e, "store-io")).toBe(true);
    full = undefined;
    expect(await store.length!("kim")).toBe(0);
    expect(await store.read("kim")).toEqual([]);
    expect(await store.list!()).toEqual([]);
    expect(await store.append("kim", [rec("b")], { expect: 0 })).toBe(1);
    await store.close!();
  });
});
