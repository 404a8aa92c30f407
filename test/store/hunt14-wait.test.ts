/**
 * `wait` on a conversation whose file holds a crash's torn tail. The Store
 * contract (src/store/types.ts): `wait` "resolves true once the conversation
 * holds more than `after` records, false after `timeoutMs`". The next append
 * cuts the torn tail and writes its batch in its place (README, "Reading": "A
 * last line without its newline (a torn write) is ignored and repaired"), so
 * the file can end exactly as long as it was: a wait that looks only at the
 * size never counts again, answers false with the records there (and with
 * `Infinity`, never answers).
 */
import { appendFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { fsStore } from "../../adapters/node-fs/index.js";
import { spawnScript } from "./fs-children.js";

const at = "2026-12-05T00:00:00.000Z";
const rec = (text: string) => ({ functai_conversation: 1, kind: "note", at, text });

let dir: string;
const file = (id: string): string => join(dir, "conversations", `${id}.jsonl`);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt14-wait-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A conversation of one record whose file ends in a torn tail exactly as
 * long as the line the next append of `next` writes (record 2): the bytes a
 * crash left of a longer batch.
 */
async function tornAsLongAs(id: string, next: object): Promise<number> {
  await fsStore(dir).append(id, [rec("first")]);
  const line = `${JSON.stringify({ ...next, seq: 2 })}\n`;
  const crashed = `${JSON.stringify({ functai_conversation: 1, kind: "note", at, text: "x".repeat(line.length), seq: 2 })}\n`;
  await appendFile(file(id), crashed.slice(0, line.length)); // no newline at its end: torn
  return (await stat(file(id))).size;
}

describe("fsStore wait: an append that repairs a torn tail to the same size", () => {
  for (const by of ["another process", "the waiting store itself"]) {
    it(`wakes the wait (${by})`, { timeout: 15_000 }, async () => {
      const next = rec("second");
      const size = await tornAsLongAs("c", next);
      const waiter = fsStore(dir, { pollMs: 10 });
      expect(await waiter.length!("c")).toBe(1);
      const started = performance.now();
      const waiting = waiter.wait!("c", 1, 6_000);
      await new Promise((r) => setTimeout(r, 150)); // the wait has looked at the file (and its torn tail)
      if (by === "another process") {
        const child = spawnScript(fileURLToPath(new URL("./hunt14-append-child.ts", import.meta.url)), [dir, "c", JSON.stringify(next)]);
        expect(await child.line((l) => l.startsWith("appended "))).toBe("appended 2");
        expect(await child.exited).toBe(0);
      } else expect(await waiter.append("c", [next])).toBe(2);
      // the premise: the repaired file is exactly as long as the torn one
      expect((await stat(file("c"))).size).toBe(size);
      expect((await readFile(file("c"), "utf8")).endsWith(`"text":"second","seq":2}\n`)).toBe(true);

      expect(await waiting).toBe(true);
      expect(performance.now() - started).toBeLessThan(5_000); // (a child takes a second or two to start)
    });
  }
});
