/**
 * A complete line that is not UTF-8 (a byte of another encoding: a file
 * "repaired by hand" in a Latin-1 editor, a foreign writer, bit rot). JSON
 * text is UTF-8, and the store only writes UTF-8; decoded as it was, such a
 * line read as a record with U+FFFD where the file holds something else: a
 * record misread, then replayed to a turn as if it were what was written.
 * README, "Reading": "any complete line that does not parse, the last one
 * included, is damage: refused (`store-corrupt`), never dropped or
 * overwritten".
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { codeOf } from "./contract.js";

const at = "2026-12-05T00:00:00.000Z";
const rec = (text: string) => ({ functai_conversation: 1, kind: "note", at, text });

let dir: string;
const file = (id: string): string => join(dir, "conversations", `${id}.jsonl`);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt14-utf8-"));
  await mkdir(join(dir, "conversations"), { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `{…"text":"caf<0xE9>","seq":n}\n`: "café" in Latin-1, not UTF-8. */
const latin1Line = (seq: number): Buffer =>
  Buffer.concat([
    Buffer.from(`{"functai_conversation":1,"kind":"note","at":"${at}","text":"caf`),
    Buffer.from([0xe9]),
    Buffer.from(`","seq":${seq}}\n`),
  ]);
const utf8Line = (seq: number, text: string): Buffer => Buffer.from(`${JSON.stringify({ ...rec(text), seq })}\n`);

describe("fsStore: a complete line that is not UTF-8 is damage", () => {
  const layouts: [string, Buffer][] = [
    ["the last line", Buffer.concat([utf8Line(1, "one"), latin1Line(2)])],
    ["a line before the last", Buffer.concat([utf8Line(1, "one"), latin1Line(2), utf8Line(3, "three")])],
    ["the only line", latin1Line(1)],
  ];
  for (const [where, bytes] of layouts) {
    it(`${where}: read, length, scan and append refuse it (store-corrupt), and the file stays as it was`, async () => {
      await writeFile(file("c"), bytes);
      const visited: unknown[] = [];
      for (const store of [fsStore(dir), fsStore(dir, { readCacheBytes: 0, scanChunkBytes: 16 })]) {
        expect(await codeOf(() => store.read("c"))).toBe("store-corrupt");
        expect(await codeOf(() => store.length!("c"))).toBe("store-corrupt");
        expect(await codeOf(() => store.scan!("c", 0, (r) => visited.push(r)))).toBe("store-corrupt");
        expect(await codeOf(() => store.wait!("c", 5, 10))).toBe("store-corrupt");
        expect(await codeOf(() => store.append("c", [rec("late")]))).toBe("store-corrupt");
      }
      for (const r of visited) expect(JSON.stringify(r)).not.toContain("\uFFFD"); // nothing misread was handed on
      expect(await readFile(file("c"))).toEqual(bytes);
    });
  }

  it("U+FFFD written as UTF-8 (a record that holds it) is kept and read back", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("caf\uFFFD"), rec("ok")]);
    for (const reader of [fsStore(dir), fsStore(dir, { readCacheBytes: 0, scanChunkBytes: 16 })]) {
      expect((await reader.read("c")).map((r) => (r as { text?: string }).text)).toEqual(["caf\uFFFD", "ok"]);
      const seen: string[] = [];
      expect(await reader.scan!("c", 0, (r) => seen.push((r as { text?: string }).text ?? ""))).toBe(2);
      expect(seen).toEqual(["caf\uFFFD", "ok"]);
    }
  });

  it("a torn last line (no newline) that ends inside a character is still a torn write: ignored, then cut", async () => {
    const torn = Buffer.from(`{"functai_conversation":1,"kind":"note","at":"${at}","text":"caf\u00e9`).subarray(0, -1); // half of "é"
    await writeFile(file("c"), Buffer.concat([utf8Line(1, "one"), torn]));
    const store = fsStore(dir);
    expect((await store.read("c")).map((r) => r.seq)).toEqual([1]);
    expect(await store.append("c", [rec("two")])).toBe(2);
    expect((await store.read("c")).map((r) => (r as { text?: string }).text)).toEqual(["one", "two"]);
  });
});
