/**
 * The fs store's read cache, now that each read parses records of its own
 * from the lines it keeps (hunt26-records): reads no longer hand out the
 * same objects, so whether a file is still kept is told the way the cache
 * itself relies on: bytes once read as committed never change. A probe
 * rewrites a committed record's text in place (same size, same file): a
 * kept read still gives the text it kept, a read of the file gives the new
 * one. (hunt14-read-cache told it by `read(c)[0] === read(c)[0]`.)
 */
import { mkdtemp, open, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";

const rec = (text: string) => ({ functai_conversation: 1, kind: "note", at: "2026-12-05T00:00:00.000Z", text });
const texts = (records: readonly object[]) => records.map((r) => (r as { text?: string }).text);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt26-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fileOf = (id: string): string => join(dir, "conversations", `${id}.jsonl`);

/** Rewrites, in place, the first record's one-letter text `from` as `to` (the file keeps its size and inode). */
async function rewriteInPlace(id: string, from: string, to: string): Promise<void> {
  const text = await readFile(fileOf(id));
  const at = text.indexOf(`"text":"${from}"`);
  expect(at).toBeGreaterThan(-1);
  const handle = await open(fileOf(id), "r+");
  try {
    await handle.write(Buffer.from(to), 0, 1, at + '"text":"'.length);
  } finally {
    await handle.close();
  }
}

/** Whether `reader` still keeps conversation `id` (its first record's text is `from`): probed, then put back. */
async function kept(reader: Store, id: string, from: string): Promise<boolean> {
  await rewriteInPlace(id, from, "#");
  try {
    const [first] = texts(await reader.read(id));
    expect([from, "#"]).toContain(first);
    return first === from;
  } finally {
    await rewriteInPlace(id, "#", from);
  }
}

describe("fsStore read cache, records of each read's own", () => {
  it("a read after a kept one reads the kept lines, not the file; a reader's edit of one does not reach the next", async () => {
    await fsStore(dir).append("c", [rec("a"), rec("b")]);
    const reader = fsStore(dir);
    expect(texts(await reader.read("c"))).toEqual(["a", "b"]);
    expect(await kept(reader, "c", "a")).toBe(true);
    const [first] = await reader.read("c");
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).not.toBe((await reader.read("c"))[0]); // its own
    // (with no cache, the probe sees the file: the probe tells the two apart)
    expect(await kept(fsStore(dir, { readCacheBytes: 0 }), "c", "a")).toBe(false);
  });

  it("reads side by side keep the file cached: the bytes of an entry replaced by a concurrent read are not counted for ever", async () => {
    await fsStore(dir).append("c", [rec("a"), rec("b")]);
    const size = (await stat(fileOf("c"))).size;
    const reader = fsStore(dir, { readCacheBytes: size * 4 }); // room for this file and a few more like it
    await reader.read("c");
    for (let i = 0; i < 10; i++) {
      const [x, y] = await Promise.all([reader.read("c"), reader.read("c")]);
      expect(x.map((r) => r.seq)).toEqual([1, 2]);
      expect(y.map((r) => r.seq)).toEqual([1, 2]);
    }
    expect(texts(await reader.read("c"))).toEqual(["a", "b"]);
    expect(await kept(reader, "c", "a")).toBe(true);
  });

  it("other conversations stay cached too", async () => {
    const writer = fsStore(dir);
    await writer.append("c", [rec("a")]);
    await writer.append("d", [rec("d")]);
    const size = (await stat(fileOf("c"))).size;
    const reader = fsStore(dir, { readCacheBytes: size * 4 });
    for (let i = 0; i < 10; i++) await Promise.all([reader.read("c"), reader.read("c"), reader.read("c")]);
    await reader.read("d");
    expect(await kept(reader, "d", "d")).toBe(true);
    expect(await kept(reader, "c", "a")).toBe(true);
  });

  it("read on after an append: the kept lines and the new records, from any `after`", async () => {
    const store = fsStore(dir);
    const other = fsStore(dir);
    await store.append("c", [rec("a"), rec("b")]);
    await store.read("c");
    await other.append("c", [rec("c"), rec("d")]);
    for (let after = -1; after <= 5; after++) {
      expect(texts(await store.read("c", after)), `after ${after}`).toEqual(["a", "b", "c", "d"].slice(Math.max(0, after)));
    }
    expect(texts(await store.read("c", 1.5))).toEqual(["b", "c", "d"]);
    expect(texts(await store.read("c", Number.POSITIVE_INFINITY))).toEqual([]);
    expect(await kept(store, "c", "a")).toBe(true);
  });

  it("length and wait on a store that only reads count on from its last read or scan, not the whole file each time", async () => {
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => rec(`${tag}${i}`));
    for (const cacheBytes of [undefined, 0]) {
      const [c, s] = [`c${cacheBytes ?? "d"}`, `s${cacheBytes ?? "d"}`];
      await fsStore(dir).append(c, lines(300, "old"));
      await fsStore(dir).append(s, lines(300, "old"));
      const reader = fsStore(dir, cacheBytes === undefined ? {} : { readCacheBytes: cacheBytes });
      expect(await reader.read(c)).toHaveLength(300);
      expect(await reader.scan!(s, 0, () => undefined)).toBe(300);
      await fsStore(dir).append(c, lines(2, "new"));
      await fsStore(dir).append(s, lines(1, "new"));
      const parse = vi.spyOn(JSON, "parse");
      const parsed = async <T>(p: Promise<T>): Promise<[T, number]> => {
        parse.mockClear();
        const value = await p;
        return [value, parse.mock.calls.length];
      };
      try {
        // the scanned one: from where the scan ended (the one new line), with the cache or without
        expect(await parsed(reader.length!(s))).toEqual([301, 1]);
        expect(await parsed(reader.wait!(s, 301, 0))).toEqual([false, 1]);
        // the read one: from where the read ended while the cache keeps it; without the cache, nothing was kept
        expect(await parsed(reader.length!(c))).toEqual([302, cacheBytes === 0 ? 302 : 2]);
        expect(await parsed(reader.wait!(c, 301, 0))).toEqual([true, cacheBytes === 0 ? 302 : 2]);
      } finally {
        parse.mockRestore();
      }
      expect(texts(await reader.read(c, 300))).toEqual(["new0", "new1"]);
      expect(texts(await reader.read(s, 300))).toEqual(["new0"]);
    }
  });
});
