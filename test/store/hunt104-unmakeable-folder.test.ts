/**
 * Hunt 104: the fs store made its folder with `mkdir(…, { recursive: true })`. Where a parent folder is there and
 * still answers "not found" for a folder in it (a path under /proc), Node's recursive mkdir tries again for ever:
 * the first append never settled (and a thread of libuv's pool spun with it). It is now refused `store-io`, naming
 * the path, as any folder the store cannot make.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { rec } from "./contract.js";

describe("fs store: a folder that cannot be made", () => {
  it.runIf(existsSync("/proc/self"))("under /proc: the append is refused store-io naming the path, never left pending", async () => {
    const dir = "/proc/self/functai-hunt104/chats";
    const error = await fsStore(dir)
      .append("c", [rec()])
      .catch((e: unknown) => e);
    expect(isFunctaiError(error, "store-io")).toBe(true);
    expect((error as Error).message).toContain(join(dir, "conversations"));
  });
});
