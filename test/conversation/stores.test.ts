/**
 * The stores that string `store` options name have one owner
 * (src/runtime/stores.ts): a location is opened once and shared, and
 * `closeStores()` closes them all (a real file-system store here).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { closeStores, resolveStore, storeAt } from "../../src/runtime/stores.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "functai-stores-"));
  dirs.push(dir);
  return dir;
};

afterEach(async () => {
  await closeStores();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("the stores string options name", () => {
  it("conversations naming one location share one store, and its records", async () => {
    const dir = await tempDir();
    const fn = ai("echo", { description: "Echo.", input: { ask: z.string() } });
    const a = fn.conversation("a", { store: dir, lm: scripted(["one"]) });
    const b = fn.conversation("a", { store: dir, lm: scripted(["two"]) });
    expect(a.store).toBe(b.store);
    expect(a.store).toBe(storeAt(dir));
    expect(await a.send("hi")).toBe("one");
    expect((await b.turns()).length).toBe(1);
    expect(storeAt(await tempDir())).not.toBe(a.store); // another location, another store
  });

  it("closeStores closes each opened store (a waiting read ends at once) and a location named afterwards is opened afresh", async () => {
    const dir = await tempDir();
    const first = storeAt(dir);
    const started = Date.now();
    const waited = first.wait!("c", 0, 30_000); // nothing will be appended: only a close ends it early
    await closeStores();
    expect(await waited).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    const again = storeAt(dir);
    expect(again).not.toBe(first);
    await again.append("c", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]);
    expect(await again.length!("c")).toBe(1);
  });

  it("a Store given as the option is the caller's: used as is, never kept nor closed", async () => {
    const mine = memoryStore();
    expect(resolveStore(mine)).toBe(mine);
    const waited = mine.wait!("c", 0, 200);
    await closeStores();
    await mine.append("c", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]);
    expect(await waited).toBe(true); // still open: the append woke it
    expect(() => resolveStore(undefined)).toThrow(/needs a store/);
  });
});
