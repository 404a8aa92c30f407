/**
 * The fs store on a disk that is really full: a small tmpfs mounted for the
 * test (root only; skipped, saying so, where it cannot be mounted), filled
 * to its last byte. fs-full-disk.test.ts makes `writeSync` fail; here the
 * kernel does (the batch's first bytes fit in the file's last page, then
 * ENOSPC). An append that could not be written whole fails `store-io`
 * naming the file and saying what to do (it said only "no space left on
 * device"), the conversation reads as it was, and once there is room again
 * the next append goes on from there.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";
import { get } from "./contract.js";

const mountPoint = mkdtempSync(join(tmpdir(), "functai-hunt110-full-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mountPoint], { stdio: "ignore" }).status === 0;
if (!mounted) console.warn(`[hunt110] a tmpfs cannot be mounted here (not root, or not allowed): the real full-disk tests are skipped.`);
afterAll(async () => {
  if (mounted) spawnSync("umount", ["--lazy", mountPoint], { stdio: "ignore" }); // (lazy: a file some test left open does not keep it)
  await rm(mountPoint, { recursive: true, force: true });
});

let dir: string;
const filler = (): string => join(mountPoint, "filler");
beforeEach(() => {
  dir = mkdtempSync(join(mountPoint, "store-"));
});
afterEach(async () => {
  await rm(filler(), { force: true });
  await rm(dir, { recursive: true, force: true });
});

/** Fills the file system to its last byte (a filler file written until the kernel says ENOSPC, then a byte at a time). */
function fill(): void {
  const fd = openSync(filler(), "w");
  try {
    for (const size of [64 << 10, 1]) {
      const chunk = Buffer.alloc(size, 0x2e);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      }
    }
  } finally {
    closeSync(fd);
  }
}

const note = (text: string): Record<string, unknown> => ({ functai_conversation: 1, kind: "note", at: "2026-12-06T12:00:00.000Z", text });
const texts = async (store: Store, id: string): Promise<unknown[]> => (await store.read(id)).map((r) => get(r, "text"));
const failure = (p: Promise<unknown>): Promise<{ code?: string; message: string }> =>
  p.then(
    () => ({ message: "it resolved" }),
    (e: { code?: string; message: string }) => e,
  );
/** What a full disk's refusal says: the file, the kernel's words, and what to do. */
const refusedFull = (e: { code?: string; message: string }, file: string): void => {
  expect(e.code, e.message).toBe("store-io");
  expect(e.message).toContain(file);
  expect(e.message).toMatch(/no space left on device.*The disk \(or this user's quota\) is full: free some space, then try again/s);
};

describe.skipIf(!mounted)("fsStore on a disk that is really full (a small tmpfs)", () => {
  it("an append that cannot be written whole: store-io saying what to do, the conversation as it was, and on from there once there is room", async () => {
    const store = fsStore(dir);
    await store.append("c", [note("kept")]);
    const file = join(dir, "conversations", "c.jsonl");
    const before = await readFile(file, "utf8");
    fill();
    refusedFull(await failure(store.append("c", [note("a"), note("b".repeat(20_000))], { expect: 1 })), file);
    expect(await readFile(file, "utf8")).toBe(before);
    expect(await texts(store, "c")).toEqual(["kept"]);
    expect(await texts(fsStore(dir), "c")).toEqual(["kept"]);
    await rm(filler());
    expect(await store.append("c", [note("after")], { expect: 1 })).toBe(2);
    expect(await texts(fsStore(dir), "c")).toEqual(["kept", "after"]);
    await store.close!();
  });

  it("several conversations at once (their flushes after the lock): each refused, each as it was; a new one leaves nothing", async () => {
    const store = fsStore(dir);
    const ids = ["c1", "c2", "c3"];
    for (const id of ids) await store.append(id, [note(`kept ${id}`)]);
    fill();
    const big = note("x".repeat(20_000));
    const failures = await Promise.all([...ids, "new"].map((id) => failure(store.append(id, [big]))));
    for (const [i, id] of [...ids, "new"].entries()) refusedFull(failures[i]!, join(dir, "conversations", `${id}.jsonl`));
    for (const id of ids) expect(await texts(fsStore(dir), id)).toEqual([`kept ${id}`]);
    expect(await store.list!()).toEqual(ids);
    await store.close!();
  });
});
