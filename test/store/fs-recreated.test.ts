/**
 * A conversation file deleted and made again (by a person, or a host that
 * removes a conversation and starts it anew) while a store remembers the
 * old one. File systems such as ext4 give the new file the inode number the
 * old one had, so the inode alone does not tell the two apart: what a store
 * remembers of the old file (its parsed records, where its last append
 * ended) must not be taken for the new file's.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { get } from "./contract.js";

let dir: string;
const file = (id: string): string => join(dir, "conversations", `${id}.jsonl`);
/** A record whose line has the same length for texts of the same length. */
const note = (text: string): Record<string, unknown> => ({ functai_conversation: 1, kind: "note", at: "2026-12-03T12:00:00.000Z", text });
/** Appends each record in a batch of its own, as another process would, and lets its file go (a file kept open keeps its inode). */
const appendApart = async (id: string, ...records: Record<string, unknown>[]): Promise<void> => {
  const writer = fsStore(dir);
  for (const r of records) await writer.append(id, [r]);
  await writer.close!();
};
const texts = (records: readonly unknown[]): unknown[] => records.map((r) => get(r as never, "text"));
/** Deletes a conversation's file and lets the clock move on (file systems stamp a file's birth with a coarse clock). */
const remove = async (id: string): Promise<void> => {
  await rm(file(id));
  await new Promise((r) => setTimeout(r, 30));
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-recreated-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a conversation file deleted and made again (often at the same inode number)", () => {
  it("read: the new file's records, never the old file's kept in the read cache", async () => {
    const reader = fsStore(dir);
    await appendApart("c", note("old-1"), note("old-2"));
    expect(texts(await reader.read("c"))).toEqual(["old-1", "old-2"]);
    await remove("c");
    await appendApart("c", note("new-1"), note("new-2"), note("new-3")); // another process, as far as the reader can tell
    // (at the old inode number, on ext4: the reader then returned old-1, old-2, new-3)
    expect(texts(await reader.read("c"))).toEqual(["new-1", "new-2", "new-3"]);
    expect(texts(await reader.read("c", 1))).toEqual(["new-2", "new-3"]);
  });

  it("append: counts the new file's records, not from where its last append to the old one ended", async () => {
    const store = fsStore(dir, { openFiles: 1 });
    await store.append("c", [note("old-1")]);
    await store.append("c", [note("old-2")]);
    await store.append("d", [note("other")]); // (closes c's file, so its inode can be given again)
    await remove("c");
    const long = "a first record of the new file longer than the old file was".repeat(4);
    await appendApart("c", note(long));
    expect(await store.append("c", [note("next")], { expect: 1 })).toBe(2);
    expect(await store.length!("c")).toBe(2);
    expect(texts(await fsStore(dir).read("c"))).toEqual([long, "next"]);
  });

  it("a scan's mark on the old file is not where a read of the new one goes on from", async () => {
    const store = fsStore(dir, { readCacheBytes: 0 });
    await appendApart("c", note("old-1"), note("old-2"));
    expect(await store.scan!("c", 0, () => undefined)).toBe(2);
    await remove("c");
    await appendApart("c", note("new-1 (longer)"), note("new-2"), note("new-3"));
    expect(texts(await store.read("c", 2))).toEqual(["new-3"]);
    expect(texts(await store.read("c", 0))).toEqual(["new-1 (longer)", "new-2", "new-3"]);
  });
});
