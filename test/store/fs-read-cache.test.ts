/**
 * The fs store's read cache: a read parses only what was appended since the
 * last read, and never returns what the file no longer holds.
 */
import { appendFile, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { isFunctaiError } from "../../src/errors.js";

const rec = (text = "x") => ({ functai_conversation: 1, kind: "note", at: new Date().toISOString(), text });
const texts = (records: readonly object[]) => records.map((r) => (r as { text?: string }).text);

describe("fs store: read cache", () => {
  let dir: string;
  const file = (id: string) => join(dir, "conversations", `${id}.jsonl`);
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "functai-fs-cache-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("sees what another writer (store) appended since, from any `after`", async () => {
    const reader = fsStore(dir);
    const writer = fsStore(dir);
    await writer.append("c", [rec("a"), rec("b")]);
    expect(texts(await reader.read("c"))).toEqual(["a", "b"]);
    await writer.append("c", [rec("c")]);
    expect(texts(await reader.read("c"))).toEqual(["a", "b", "c"]);
    expect(texts(await reader.read("c", 1))).toEqual(["b", "c"]);
    expect(texts(await reader.read("c", 3))).toEqual([]);
    expect((await reader.read("c")).map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it("after its own append, a read from the end finds nothing; what another writer adds after it, earlier records and a replaced file are read", async () => {
    const store = fsStore(dir);
    const other = fsStore(dir);
    await store.append("c", [rec("a")]);
    await store.read("c"); // (cached up to "a")
    expect(await store.append("c", [rec("b")])).toBe(2);
    expect(await store.read("c", 2)).toEqual([]); // the file ends where our append left it
    expect(texts(await store.read("c", 1))).toEqual(["b"]);
    expect(texts(await store.read("c"))).toEqual(["a", "b"]);
    await other.append("c", [rec("c")]);
    expect(texts(await store.read("c", 2))).toEqual(["c"]);
    // a file of the same size in its place (another inode, more records) is read anew
    await store.append("c", [rec("d".repeat(300))]);
    const elsewhere = fsStore(join(dir, "elsewhere"));
    await elsewhere.append("c", [rec("v"), rec("w"), rec("x"), rec("y"), rec("z")]);
    const theirs = join(dir, "elsewhere", "conversations", "c.jsonl");
    const text = await readFile(theirs, "utf8");
    const pad = (await stat(file("c"))).size - Buffer.byteLength(text);
    expect(pad).toBeGreaterThan(0);
    await writeFile(theirs, text.replace('"text":"z"', `"text":"z${"_".repeat(pad)}"`));
    expect((await stat(theirs)).size).toBe((await stat(file("c"))).size);
    await rename(theirs, file("c"));
    expect(texts(await store.read("c", 4))).toEqual([`z${"_".repeat(pad)}`]);
  });

  it("returns frozen records and a fresh array each time", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("a")]);
    const first = await store.read("c");
    expect(Object.isFrozen(first[0])).toBe(true);
    (first as unknown[]).push("junk");
    expect(texts(await store.read("c"))).toEqual(["a"]);
  });

  it("a file replaced (another inode) or cut is read anew", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("a"), rec("b")]);
    await store.read("c");
    const other = fsStore(join(dir, "other"));
    await other.append("c", [rec("z")]);
    await rename(join(dir, "other", "conversations", "c.jsonl"), file("c"));
    expect(texts(await store.read("c"))).toEqual(["z"]);
    const text = await readFile(file("c"), "utf8");
    await writeFile(file("c"), ""); // cut (same inode, shorter)
    expect(await store.read("c")).toEqual([]);
    await writeFile(file("c"), text);
    expect(texts(await store.read("c"))).toEqual(["z"]);
    await rm(file("c"));
    expect(await store.read("c")).toEqual([]);
  });

  it("a torn tail is not cached: once completed by an append, it is read", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("a")]);
    await appendFile(file("c"), '{"functai_conversation":1,"kind":"note"');
    expect(texts(await store.read("c"))).toEqual(["a"]);
    await store.append("c", [rec("b")]); // cuts the torn tail
    expect(texts(await store.read("c"))).toEqual(["a", "b"]);
  });

  it("damage after the cached part is refused; readCacheBytes: 0 reads the whole file each time", async () => {
    for (const readCacheBytes of [undefined, 0]) {
      const id = `c${readCacheBytes ?? "d"}`;
      const store = fsStore(dir, readCacheBytes === undefined ? {} : { readCacheBytes });
      await store.append(id, [rec("a")]);
      await store.read(id);
      await appendFile(file(id), "{oops\n" + JSON.stringify({ ...rec("b"), seq: 3 }) + "\n");
      const error = await store.read(id).catch((e: unknown) => e);
      expect(isFunctaiError(error, "store-corrupt")).toBe(true);
    }
  });

  describe("a fresh store's first append after a read", () => {
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => rec(`${tag}${i}`));

    it("reads on from where the read ended: only what others appended since is parsed", async () => {
      await fsStore(dir).append("c", lines(300, "old"));
      const store = fsStore(dir);
      expect(await store.read("c")).toHaveLength(300);
      await fsStore(dir).append("c", lines(2, "new")); // another writer, after the read
      const parse = vi.spyOn(JSON, "parse");
      try {
        expect(await store.append("c", [rec("mine")], { expect: 302 })).toBe(303);
        expect(parse.mock.calls.length).toBeLessThanOrEqual(2); // the two new lines, not the 300 before
      } finally {
        parse.mockRestore();
      }
      const all = await fsStore(dir).read("c");
      expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 303 }, (_, i) => i + 1));
      expect(texts(all.slice(-3))).toEqual(["new0", "new1", "mine"]);
    });

    it("a file replaced since the read (another inode) is read whole again: the length it checks is the new file's", async () => {
      await fsStore(dir).append("c", lines(5, "old"));
      const store = fsStore(dir);
      expect(await store.read("c")).toHaveLength(5);
      const other = fsStore(join(dir, "other"));
      await other.append("c", lines(2, "other"));
      await rename(join(dir, "other", "conversations", "c.jsonl"), file("c"));
      const e = await store.append("c", [rec()], { expect: 5 }).catch((x: unknown) => x);
      expect(isFunctaiError(e) && e.code).toBe("store-conflict");
      expect(await store.append("c", [rec("third")], { expect: 2 })).toBe(3);
      expect(texts(await fsStore(dir).read("c"))).toEqual(["other0", "other1", "third"]);
    });
  });
});
