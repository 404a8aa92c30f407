/**
 * A string `store` names a place (src/runtime/stores.ts, through #runtime):
 * in Node a directory, so the spellings of one directory are one store, and
 * a relative path means the directory it names when it is used (after a
 * `process.chdir`, another one).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeStores, storeAt } from "../../src/runtime/stores.js";

const dirs: string[] = [];
const cwd = process.cwd();

afterEach(async () => {
  process.chdir(cwd);
  await closeStores();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "functai-locations-"));
  dirs.push(dir);
  return dir;
};

/** The conversation files of the store at `<dir>/chats` (not its lock's holder links). */
const conversationFiles = async (dir: string): Promise<string[]> =>
  (await readdir(join(dir, "chats", "conversations"))).filter((name) => name.endsWith(".jsonl"));

const record = { functai_conversation: 1, kind: "stop", at: "2026-12-03T10:00:00.000Z", turn: "t1" };

describe("string store locations (Node)", () => {
  it("the spellings of one directory (trailing slash, ./, relative, absolute) are one store", async () => {
    const dir = await tempDir();
    process.chdir(dir);
    const store = storeAt("chats");
    expect(storeAt("chats/")).toBe(store);
    expect(storeAt("./chats")).toBe(store);
    expect(storeAt(join(dir, "chats"))).toBe(store);
    expect(storeAt(relative(dir, join(dir, "x", "..", "chats")))).toBe(store);
  });

  it("a relative path named after process.chdir is the directory under the new working directory", async () => {
    const first = await tempDir();
    const second = await tempDir();
    process.chdir(first);
    await storeAt("chats/").append("a", [record]);
    process.chdir(second);
    await storeAt("chats/").append("b", [record]);
    expect(await conversationFiles(first)).toEqual(["a.jsonl"]);
    expect(await conversationFiles(second)).toEqual(["b.jsonl"]);
  });

  it("a postgres:// URL is kept as it is (never taken for a path)", () => {
    const url = "postgres://app:secret@127.0.0.1:1/app";
    const store = storeAt(url);
    expect(storeAt(url)).toBe(store);
    expect(store).not.toBe(storeAt(resolve(url))); // a path made of the URL would be this one
  });
});
