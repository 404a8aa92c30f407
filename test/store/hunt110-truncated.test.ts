/**
 * A conversation file emptied by another program (`: > sam.jsonl`, a
 * truncate, a `cp` of another file over it: the same file, the same inode
 * and birth time) and written again since, by another store, to at least
 * the length it had. A store that had read or appended to it before read on
 * from where the file used to end, as if only appends had happened: in the
 * middle of a line it refused the healthy file as damaged (`store-corrupt`,
 * on every later call of that store), and where the lines fell alike it
 * handed out the records the file held before the cut, mixed with the new.
 */
import { mkdtemp, rm, stat, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";
import { note, rewriteAsTwo, scanned, texts } from "./fixtures/conversation-c.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt110-truncated-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The long-lived store's three records, read (so kept in its read cache) and appended; then the file emptied and written anew by another store. */
async function cutAndRewritten(options: Parameters<typeof fsStore>[1], anew: string[]): Promise<Store> {
  const kept = fsStore(dir, options);
  for (const t of ["a1", "a2", "a3"]) await kept.append("c", [note(t)]);
  expect(await texts(kept)).toEqual(["1:a1", "2:a2", "3:a3"]);
  await truncate(join(dir, "conversations", "c.jsonl"), 0);
  const other = fsStore(dir);
  for (const t of anew) await other.append("c", [note(t)]);
  await other.close!();
  return kept;
}

describe("fsStore: a conversation file cut by another program and written again", () => {
  for (const [name, options] of [
    ["with the read cache", {}],
    ["without it", { readCacheBytes: 0 }],
  ] as const) {
    it(`${name}: lines that fall elsewhere are read as the file holds them, not refused as damage`, async () => {
      const kept = await cutAndRewritten(options, ["b1 longer", "b2 longer", "b3 longer", "b4 longer"]);
      const now = ["1:b1 longer", "2:b2 longer", "3:b3 longer", "4:b4 longer"];
      expect(await kept.length!("c")).toBe(4);
      expect(await texts(kept)).toEqual(now);
      expect(await scanned(kept)).toEqual(now);
      expect(await kept.append("c", [note("a5")], { expect: 4 })).toBe(5);
      expect(await texts(fsStore(dir))).toEqual([...now, "5:a5"]);
    });
  }

  it("as long as before with fewer records: an append goes on from the file's last record (it wrote a seq the file skipped to, damaging it)", async () => {
    const kept = fsStore(dir);
    for (const t of ["a1", "a2", "a3"]) await kept.append("c", [note(t)]);
    const file = join(dir, "conversations", "c.jsonl");
    // two records whose lines add up to the three's bytes, written anew by another store
    const size = await rewriteAsTwo(dir, file);
    expect((await stat(file)).size).toBe(size);
    expect(await texts(fsStore(dir))).toHaveLength(2);
    expect(await kept.append("c", [note("a4")])).toBe(3);
    expect((await fsStore(dir).read("c")).map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it("lines that fall alike: read and scan give the file's records, never those the read cache kept from before the cut", async () => {
    const kept = await cutAndRewritten({}, ["b1", "b2", "b3", "b4"]);
    const now = ["1:b1", "2:b2", "3:b3", "4:b4"];
    expect(await texts(kept)).toEqual(now);
    expect(await scanned(kept)).toEqual(now);
    expect(await kept.append("c", [note("a5")], { expect: 4 })).toBe(5);
    expect(await texts(kept)).toEqual([...now, "5:a5"]);
  });
});
