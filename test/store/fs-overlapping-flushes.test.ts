/**
 * Many conversations writing at once through one fs store: their fsyncs run
 * after their locks, in libuv's pool, so they overlap (flush.ts). Shown
 * here: each append still resolves only after its own batch was flushed,
 * every batch lands whole, and a flush that fails takes its batch back
 * when nothing was appended after it (a failing fsync is injected through
 * `node:fs`, the module the store calls).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const failing = vi.hoisted(() => ({ next: 0, calls: 0 }));
vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  const fsync = (fd: number, done: (e: NodeJS.ErrnoException | null) => void): void => {
    failing.calls++;
    if (failing.next > 0) {
      failing.next--;
      setImmediate(() => done(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })));
      return;
    }
    fs.fsync(fd, done);
  };
  return { ...fs, fsync, default: { ...fs, fsync } };
});

const { fsStore } = await import("../../adapters/node-fs/index.js");

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "functai-overlap-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  failing.next = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
type Note = { owner: string; round: number; seq: number };
const notes = async (records: Promise<unknown[]>): Promise<Note[]> => (await records) as Note[];
const note = (owner: string, round: number) => ({ functai_conversation: 1, kind: "note", at: "2026-12-01T00:00:00.000Z", owner, round });

describe("fsStore: conversations flushing at once", () => {
  it("flushes in the pool while others write, and each append resolves after its own flush", async () => {
    let flushes = 0;
    let resolved = 0;
    const early: number[] = [];
    const store = fsStore(tempDir(), { onFlush: () => flushes++ });
    const before = failing.calls;
    const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
    await Promise.all(
      ids.map(async (id) => {
        for (let r = 0; r < 4; r++) {
          await store.append(id, [note(id, r)]);
          resolved++;
          if (flushes < resolved) early.push(resolved); // resolved before as many flushes had completed
        }
      }),
    );
    expect(early).toEqual([]);
    expect(flushes).toBe(ids.length * 4);
    expect(failing.calls - before).toBeGreaterThan(ids.length * 2); // most flushes went through the pool's fsync
    for (const id of ids)
      expect((await notes(store.read(id))).map((r) => [r.owner, r.round, r.seq])).toEqual([0, 1, 2, 3].map((r) => [id, r, r + 1]));
    await store.close?.();
  });

  it("one conversation alone flushes in this thread, under its lock", async () => {
    const store = fsStore(tempDir());
    const before = failing.calls;
    for (let r = 0; r < 5; r++) await store.append("solo", [note("solo", r)]);
    expect(failing.calls - before).toBe(0);
    await store.close?.();
  });

  it("a flush that fails after the lock takes its batch back (store-io); the next append goes on from there", async () => {
    const dir = tempDir();
    const store = fsStore(dir);
    await store.append("a", [note("a", 0)]);
    await store.append("b", [note("b", 0)]); // another conversation wrote last: the next append of "a" flushes in the pool
    failing.next = 1;
    const error = await store.append("a", [note("a", 1), note("a", 2)]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "store-io" });
    expect(String((error as Error).message)).toMatch(/EIO/);
    const text = await readFile(join(dir, "conversations", "a.jsonl"), "utf8");
    expect(text.split("\n").filter(Boolean)).toHaveLength(1); // all or none
    expect(await store.append("a", [note("a", 3)], { expect: 1 })).toBe(2);
    expect((await notes(fsStore(dir).read("a"))).map((r) => [r.round, r.seq])).toEqual([
      [0, 1],
      [3, 2],
    ]);
    await store.close?.();
  });
});
