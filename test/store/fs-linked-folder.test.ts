/**
 * A `conversations` folder that is a symbolic link: every way in refuses it
 * (`store-symlink`), reads as well as appends, so a turn never reads a
 * history from elsewhere that its next append then refuses. And every call
 * fails as a rejected promise, never a throw (a caller's `.catch` sees it).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { codeOf, rec } from "./contract.js";

let dir: string;
let outside: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-linked-"));
  outside = await mkdtemp(join(tmpdir(), "functai-linked-outside-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe("fsStore: a conversations folder that is a link", () => {
  it("read, length, scan, wait and list refuse it as append does (store-symlink), after a read before it was a link too", async () => {
    await writeFile(join(outside, "c.jsonl"), '{"functai_conversation":1,"kind":"note","at":"2026-11-29T12:00:00.000Z","seq":1}\n');
    const store = fsStore(dir);
    await store.append("first", [rec()]); // the store made its folder
    await rm(join(dir, "conversations"), { recursive: true });
    await symlink(outside, join(dir, "conversations"));
    for (const s of [store, fsStore(dir), fsStore(dir, { readCacheBytes: 0 })]) {
      expect(await codeOf(() => s.read("c"))).toBe("store-symlink");
      expect(await codeOf(() => s.length!("c"))).toBe("store-symlink");
      expect(await codeOf(() => s.scan!("c", 0, () => undefined))).toBe("store-symlink");
      expect(await codeOf(() => s.wait!("c", 0, 10))).toBe("store-symlink");
      expect(await codeOf(() => s.list!())).toBe("store-symlink");
      expect(await codeOf(() => s.append("c", [rec()]))).toBe("store-symlink");
    }
  });

  it("a folder that is a folder is read as before", async () => {
    await mkdir(join(dir, "conversations"));
    const store = fsStore(dir);
    expect(await store.read("c")).toEqual([]);
    expect(await store.list!()).toEqual([]);
    await store.append("c", [rec()]);
    expect(await store.length!("c")).toBe(1);
  });
});

describe("fsStore: a bad conversation id", () => {
  it("length rejects (conversation-id), it does not throw at the call", async () => {
    const store = fsStore(dir);
    let p: Promise<number> | undefined;
    expect(() => {
      p = store.length!("../etc/passwd");
      p.catch(() => undefined);
    }).not.toThrow();
    expect(await codeOf(() => p!)).toBe("conversation-id");
  });
});
