/**
 * The `conversations` folder removed while a store is open (a clean-up job,
 * a person): the store makes it again at its next append, as a new store
 * would, instead of failing every append until the process restarts.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { codeOf, rec } from "./contract.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-folder-removed-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the conversations folder removed while the store is open", () => {
  it("the next append makes it again (0o700) and lands; a conversation that had records starts anew", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec(), rec()]);
    await store.append("d", [rec()]);
    await rm(join(dir, "conversations"), { recursive: true });
    expect(await store.read("c")).toEqual([]);
    expect(await store.append("e", [rec()])).toBe(1);
    expect((await stat(join(dir, "conversations"))).mode & 0o777).toBe(0o700);
    expect(await codeOf(() => store.append("c", [rec()], { expect: 2 }))).toBe("store-conflict"); // its records are gone: a turn that counted on them is told
    expect(await store.append("c", [rec()])).toBe(1);
    expect(await fsStore(dir).length!("c")).toBe(1);
    expect((await readdir(join(dir, "conversations"))).filter((n) => n.endsWith(".jsonl")).sort()).toEqual(["c.jsonl", "e.jsonl"]);
  });

  it("appends to several conversations at once after it went: each lands", async () => {
    const store = fsStore(dir);
    await store.append("a", [rec()]);
    await rm(join(dir, "conversations"), { recursive: true });
    const ids = ["a", "b", "c", "d", "e", "f"];
    expect(await Promise.all(ids.map((id) => store.append(id, [rec(), rec()])))).toEqual(ids.map(() => 2));
    for (const id of ids) expect(await fsStore(dir).length!(id)).toBe(2);
  });

  it("removed again later: made again again", async () => {
    const store = fsStore(dir);
    for (let round = 1; round <= 3; round++) {
      expect(await store.append("c", [rec()])).toBe(1);
      await rm(join(dir, "conversations"), { recursive: true });
    }
  });
});
