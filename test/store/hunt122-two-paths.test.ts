/**
 * One process opening one store folder by two paths (the folder, and a
 * symbolic link to the folder it is in): each store object took its own
 * holder link by its path, found the other's under the same name, removed
 * it, and every append of either fell back to a symbolic link of its own
 * (an inode made per lock, the slower path). Locks are hard links to the
 * holder link again whichever path the folder is reached by, and the two
 * store objects still take turns: every append counts on from the other's.
 */
import { lstatSync } from "node:fs";
import { mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { rec } from "./contract.js";

let dir: string;
let linked: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt122-paths-"));
  linked = `${dir}-link`;
  await symlink(dir, linked);
});
afterEach(async () => {
  await rm(linked, { force: true });
  await rm(dir, { recursive: true, force: true });
});

describe("fsStore: one folder opened by two paths in one process", () => {
  it("each append's lock is a hard link to the one holder link (the fast path), and the appends count on from each other's", async () => {
    const lock = join(dir, "conversations", "c.jsonl.lock");
    const links: number[] = [];
    // (onFlush runs under the lock, in the append's synchronous stretch: the lock as it was held)
    const onFlush = (): void => void links.push(lstatSync(lock).nlink);
    const stores = [fsStore(dir, { onFlush }), fsStore(linked, { onFlush })];
    for (let i = 0; i < 6; i++) expect(await stores[i % 2]!.append("c", [rec()], { expect: i })).toBe(i + 1);
    expect(links).toEqual([2, 2, 2, 2, 2, 2]);
    const holders = (await readdir(join(dir, "conversations"))).filter((n) => n.startsWith(".holder-"));
    expect(holders).toHaveLength(1);
    expect(await stores[0]!.length!("c")).toBe(6);
    expect(await stores[1]!.length!("c")).toBe(6);
  });
});
