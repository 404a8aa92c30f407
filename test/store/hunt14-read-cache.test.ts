/**
 * The fs store's read cache under reads of one conversation that run side by
 * side (`Promise.all` of reads: a server answering several requests about one
 * conversation). README, "Reading": a short file "is read whole and kept for
 * the turn that is likely resumed next; a read after it reads only what was
 * appended since". A kept read gives back the very records it kept (frozen,
 * the same objects), so whether the cache still keeps a file shows in
 * `read(c)[0] === read(c)[0]`.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";

const rec = (text: string) => ({ functai_conversation: 1, kind: "note", at: "2026-12-05T00:00:00.000Z", text });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt14-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("fsStore read cache: reads of one conversation side by side", () => {
  it("keep the file cached: the bytes of an entry replaced by a concurrent read are not counted for ever", async () => {
    await fsStore(dir).append("c", [rec("a"), rec("b")]);
    const size = (await stat(join(dir, "conversations", "c.jsonl"))).size;
    // room for this file and a few more like it
    const reader = fsStore(dir, { readCacheBytes: size * 4 });
    const first = await reader.read("c");
    expect((await reader.read("c"))[0]).toBe(first[0]); // kept

    for (let i = 0; i < 10; i++) {
      const [x, y] = await Promise.all([reader.read("c"), reader.read("c")]);
      expect(x.map((r) => r.seq)).toEqual([1, 2]);
      expect(y.map((r) => r.seq)).toEqual([1, 2]);
    }

    const again = await reader.read("c");
    expect(again.map((r) => (r as { text?: string }).text)).toEqual(["a", "b"]);
    // still kept: the same records, not the file parsed whole again
    expect((await reader.read("c"))[0]).toBe(again[0]);
  });

  it("other conversations stay cached too", async () => {
    const writer = fsStore(dir);
    await writer.append("c", [rec("a")]);
    await writer.append("d", [rec("d")]);
    const size = (await stat(join(dir, "conversations", "c.jsonl"))).size;
    const reader = fsStore(dir, { readCacheBytes: size * 4 });
    for (let i = 0; i < 10; i++) await Promise.all([reader.read("c"), reader.read("c"), reader.read("c")]);
    const d = await reader.read("d");
    expect((await reader.read("d"))[0]).toBe(d[0]);
    const c = await reader.read("c");
    expect((await reader.read("c"))[0]).toBe(c[0]);
  });
});
