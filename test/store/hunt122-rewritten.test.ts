/**
 * A conversation file rewritten in place by another program (an editor, a
 * script, `cp` of another file over it: the same inode and birth time) to
 * the very size it had. A store that had read it (or appended to it) took
 * the size for "nothing changed": its reads gave the records it had read
 * before, and its `length` the count it had before, until the file grew.
 */
import { readFile, writeFile } from "node:fs/promises";
import { mkdtemp, rm, stat, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";
import { note, rewriteAsTwo, scanned, texts } from "./fixtures/conversation-c.js";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt122-rewritten-"));
  file = join(dir, "conversations", "c.jsonl");
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

/** A store that appended a1, a2, a3 and read them (kept in its read cache). */
async function readStore(options: Parameters<typeof fsStore>[1] = {}): Promise<Store> {
  const kept = fsStore(dir, options);
  for (const t of ["a1", "a2", "a3"]) await kept.append("c", [note(t)]);
  expect(await texts(kept)).toEqual(["1:a1", "2:a2", "3:a3"]);
  return kept;
}

/** Another program writes the file anew in place (the same inode) with `text` for its first record's, as long. */
async function editFirst(text: string): Promise<void> {
  const before = await stat(file);
  await writeFile(file, (await readFile(file, "utf8")).replace('"text":"a1"', `"text":"${text}"`));
  const after = await stat(file);
  expect([after.ino, after.size]).toEqual([before.ino, before.size]);
}

describe("fsStore: a conversation file rewritten in place to the same size", () => {
  it("read and scan give the records the file holds now, not those read before", async () => {
    const kept = await readStore();
    await editFirst("z1");
    expect(await texts(kept)).toEqual(["1:z1", "2:a2", "3:a3"]);
    expect(await scanned(kept)).toEqual(["1:z1", "2:a2", "3:a3"]);
  });

  it("long after the store read it (the file's times then tell the change): read again from the start", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const kept = await readStore();
    vi.setSystemTime(Date.now() + 3_600_000); // the read below is an hour after the file's last change
    expect(await texts(kept)).toEqual(["1:a1", "2:a2", "3:a3"]);
    vi.useRealTimers();
    await editFirst("z1");
    expect(await texts(kept)).toEqual(["1:z1", "2:a2", "3:a3"]);
  });

  for (const [name, options] of [
    ["with the read cache", {}],
    ["without it", { readCacheBytes: 0 }],
  ] as const) {
    it(`${name}: fewer records as long as before: length and read count the file's records`, async () => {
      const kept = await readStore(options);
      const size = await rewriteAsTwo(dir, file);
      expect((await stat(file)).size).toBe(size);
      expect(await kept.length!("c")).toBe(2);
      expect((await kept.read("c")).map((r) => r.seq)).toEqual([1, 2]);
      expect(await kept.wait!("c", 2, 0)).toBe(false);
    });
  }
  it("more records as long as before, after the store's own appends: read on from its length gives the new ones (wait said there were)", async () => {
    const kept = fsStore(dir);
    for (const t of ["a", "b", "c"]) await kept.append("c", [note(t.repeat(60))]);
    const size = (await stat(file)).size;
    const line = (text: string, seq: number): number => JSON.stringify({ ...note(text), seq }).length + 1;
    const room = size - line("", 1) - line("", 2) - line("", 3) - line("", 4);
    expect(room).toBeGreaterThan(3);
    await truncate(file, 0);
    const other = fsStore(dir);
    for (const t of ["b", "c", "d"]) await other.append("c", [note(t)]);
    await other.append("c", [note("e".repeat(room - 3))]);
    await other.close!();
    expect((await stat(file)).size).toBe(size);
    expect(await kept.wait!("c", 3, 0)).toBe(true);
    expect(await texts(kept)).toHaveLength(4);
    expect((await kept.read("c", 3)).map((r) => r.seq)).toEqual([4]);
  });
});
