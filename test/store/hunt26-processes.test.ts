/**
 * The fs store across real processes, where its folder does not exist yet
 * and while others write: of several processes making the folder and the
 * conversation at once with `expect: 0`, exactly one wins; readers in other
 * processes (read, scan, length; fresh stores and a kept cache) never see
 * half a batch, a gap, or fewer records than before.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { spawnChild, spawnScript } from "./fs-children.js";

const script = fileURLToPath(new URL("./fixtures/hunt26-child.ts", import.meta.url));

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "functai-hunt26-procs-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("fs store, several processes on one folder", () => {
  it("the folder and the file made by several processes at once: exactly one `expect: 0` wins, the others are store-conflict", async () => {
    for (const round of [1, 2]) {
      const dir = join(base, `r${round}`, "not", "there", "yet");
      const go = join(base, `go${round}`);
      const children = Array.from({ length: 4 }, (_, i) => spawnScript(script, ["first", dir, "c", `p${i}`, go]));
      await new Promise((r) => setTimeout(r, 1_500)); // (each child loaded and looking for the go file)
      await writeFile(go, "");
      expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);
      const said = children.map((c) => c.lines.find((l) => l.startsWith("won") || l.startsWith("lost")));
      expect(said.filter((l) => l === "won 1")).toHaveLength(1);
      expect(said.filter((l) => l === "lost store-conflict")).toHaveLength(3);
      const records = await fsStore(dir).read("c");
      expect(records).toHaveLength(1);
      expect((await readFile(join(dir, "conversations", "c.jsonl"), "utf8")).split("\n")).toHaveLength(2);
    }
  });

  it("readers in other processes see whole batches, in order, never fewer than before, while two processes append", async () => {
    const dir = join(base, "shared");
    const readers = [spawnScript(script, ["reads", dir, "c", "4000"]), spawnScript(script, ["reads", dir, "c", "4000"])];
    const writers = [spawnChild(["append", dir, "c", "60", "w1"]), spawnChild(["append", dir, "c", "60", "w2"])];
    expect(await Promise.all([...writers, ...readers].map((c) => c.exited))).toEqual([0, 0, 0, 0]);
    for (const r of readers) {
      const said = r.lines.find((l) => l.startsWith("ok") || l.startsWith("bad"));
      expect(said).toMatch(/^ok \d+ \d+$/);
      // (they read while the writers wrote: more than a few reads, and the last saw records)
      const [, reads, last] = said!.split(" ").map(Number);
      expect(reads).toBeGreaterThan(20);
      expect(last).toBeGreaterThan(0);
    }
    const records = await fsStore(dir).read("c");
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: records.length }, (_, i) => i + 1));
    expect(records.length).toBe(2 * (20 * (1 + 2 + 3)));
  });
});
