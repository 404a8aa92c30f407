/**
 * The fs store's read cache, now that each read parses records of its own
 * from the lines it keeps (hunt26-records): reads no longer hand out the
 * same objects, so whether a file is still kept is told by what a read does:
 * a kept read reads no byte of the file (`fs.read` is counted). Until hunt
 * 122 a probe rewrote a committed record's text in place (same size, same
 * file) and a kept read gave the text it kept; the store now notices such a
 * rewrite (its size and times), so the probe counts reads instead. The
 * file's times prove it unchanged only once they are older than a change
 * could hide in: each test moves the clock an hour on after its writes.
 * (hunt14-read-cache told it by `read(c)[0] === read(c)[0]`.)
 */
import * as fs from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, read: vi.fn(real.read) };
});

const rec = (text: string) => ({ functai_conversation: 1, kind: "note", at: "2026-12-05T00:00:00.000Z", text });
const texts = (records: readonly object[]) => records.map((r) => (r as { text?: string }).text);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt26-cache-"));
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

const fileOf = (id: string): string => join(dir, "conversations", `${id}.jsonl`);

/** An hour after the files' last change: their times tell a later one apart, so a read may keep them. */
const later = (): void => {
  vi.setSystemTime(Date.now() + 3_600_000);
};

/** Whether `reader` still keeps conversation `id`: a read of it reads no byte of the file. */
async function kept(reader: Store, id: string): Promise<boolean> {
  vi.mocked(fs.read).mockClear();
  await reader.read(id);
  return vi.mocked(fs.read).mock.calls.length === 0;
}

describe("fsStore read cache, records of each read's own", () => {
  it("a read after a kept one reads the kept lines, not the file; a reader's edit of one does not reach the next", async () => {
    await fsStore(dir).append("c", [rec("a"), rec("b")]);
    later();
    const reader = fsStore(dir);
    expect(texts(await reader.read("c"))).toEqual(["a", "b"]);
    expect(await kept(reader, "c")).toBe(true);
    const [first] = await reader.read("c");
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).not.toBe((await reader.read("c"))[0]); // its own
    // (with no cache, the probe sees the file: the probe tells the two apart)
    expect(await kept(fsStore(dir, { readCacheBytes: 0 }), "c")).toBe(false);
  });

  it("reads side by side keep the file cached: the bytes of an entry replaced by a concurrent read are not counted for ever", async () => {
    await fsStore(dir).append("c", [rec("a"), rec("b")]);
    const size = (await stat(fileOf("c"))).size;
    later();
    const reader = fsStore(dir, { readCacheBytes: size * 4 }); // room for this file and a few more like it
    await reader.read("c");
    for (let i = 0; i < 10; i++) {
      const [x, y] = await Promise.all([reader.read("c"), reader.read("c")]);
      expect(x.map((r) => r.seq)).toEqual([1, 2]);
      expect(y.map((r) => r.seq)).toEqual([1, 2]);
    }
    expect(texts(await reader.read("c"))).toEqual(["a", "b"]);
    expect(await kept(reader, "c")).toBe(true);
  });

  it("other conversations stay cached too", async () => {
    const writer = fsStore(dir);
    await writer.append("c", [rec("a")]);
    await writer.append("d", [rec("d")]);
    const size = (await stat(fileOf("c"))).size;
    later();
    const reader = fsStore(dir, { readCacheBytes: size * 4 });
    for (let i = 0; i < 10; i++) await Promise.all([reader.read("c"), reader.read("c"), reader.read("c")]);
    await reader.read("d");
    expect(await kept(reader, "d")).toBe(true);
    expect(await kept(reader, "c")).toBe(true);
  });

  it("read on after an append: the kept lines and the new records, from any `after`", async () => {
    const store = fsStore(dir);
    const other = fsStore(dir);
    await store.append("c", [rec("a"), rec("b")]);
    await store.read("c");
    await other.append("c", [rec("c"), rec("d")]);
    later();
    for (let after = -1; after <= 5; after++) {
      expect(texts(await store.read("c", after)), `after ${after}`).toEqual(["a", "b", "c", "d"].slice(Math.max(0, after)));
    }
    expect(texts(await store.read("c", 1.5))).toEqual(["b", "c", "d"]);
    expect(texts(await store.read("c", Number.POSITIVE_INFINITY))).toEqual([]);
    expect(await kept(store, "c")).toBe(true);
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
