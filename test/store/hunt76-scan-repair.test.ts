/**
 * The fs store's `scan` of a file larger than it reads whole streams it in
 * chunks, with no lock, while another process may append. A crash left a
 * torn last line; the other process's append cuts it and writes its record
 * in its place. A scan that had read the first bytes of the torn line in one
 * chunk read the rest in the next from the file as it now stood: the first
 * part of the torn line glued to the rest of the new record, one line that
 * parsed as a record nobody wrote (`scan` handed it to `visit` as record 10),
 * or a line that did not parse, read as damage (`store-corrupt`) in a
 * healthy file. `read` guards against this race (files.ts, readScan); the
 * streamed scan did not.
 *
 * The race is made certain, not timed: `visit`, called as the chunk holding
 * record 9 is parsed, runs the other process's append to its end
 * (execFileSync: a real child process with a store of its own) before the
 * scan reads its next chunk. Chunk sizes from 8 to 96 bytes put the chunk's
 * end at every place of the torn line's first bytes.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { ConversationRecord } from "../../src/records/types.js";

const CHILD = fileURLToPath(new URL("./hunt14-append-child.ts", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The other process: appends `record` with a store of its own (cutting the torn tail first), to its end. */
const appendElsewhere = (dir: string, record: object): void => {
  const out = execFileSync(process.execPath, ["--import", "tsx", "--conditions=functai-source", CHILD, dir, "c", JSON.stringify(record)], {
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(out).toContain("appended 10");
};

/** A record's text, its ends only. */
const shortText = (r: ConversationRecord): string => {
  const text = String((r as { text?: unknown }).text);
  return `${text.slice(0, 12)}…${text.slice(-12)}`;
};

/**
 * Nine records, then `torn` (what a crash left), scanned `chunk` bytes at a time while, at record 9, another process
 * appends record 10 (cutting the torn tail first). What went wrong, if anything (one line), else undefined.
 */
async function scanAcrossRepair(chunk: number, torn: string): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "hunt76-scan-"));
  dirs.push(dir);
  const writer = fsStore(dir);
  for (let i = 1; i <= 9; i++) await writer.append("c", [{ kind: "note", text: `r${i}` }]);
  await writer.close!();
  appendFileSync(join(dir, "conversations", "c.jsonl"), torn);
  // streamed (no read cache: the file is not read whole), `chunk` bytes at a time
  const store = fsStore(dir, { readCacheBytes: 0, scanChunkBytes: chunk });
  const visited: ConversationRecord[] = [];
  let length: number | string;
  try {
    length = await store.scan!("c", 0, (r) => {
      visited.push(r);
      if (r.seq === 9) appendElsewhere(dir, { kind: "note", text: "B".repeat(100) });
    });
  } catch (e) {
    length = `refused: ${(e as { code?: string }).code} ${(e as Error).message.slice(0, 160)}`;
  } finally {
    await store.close!();
  }
  const truth = await fsStore(dir).read("c");
  expect(truth.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const wrong = visited.filter((r) => JSON.stringify(r) !== JSON.stringify(truth[r.seq - 1]));
  if (typeof length === "string" || wrong.length > 0)
    return `chunk ${chunk}: scan gave ${length}; visited ${JSON.stringify(wrong.map((r) => shortText(r)))}`;
  // the file as it stood when the scan began (9), or with the other process's record (10): each as written
  if (length !== 9 && length !== 10) return `chunk ${chunk}: scan gave ${length}`;
  expect(visited.map((r) => r.seq)).toEqual(Array.from({ length }, (_, i) => i + 1));
  return undefined;
}

describe("fs store: scan racing another process's repair of a torn tail", () => {
  // (23 child processes: slow on 2 shared CPUs)
  it("a torn last line: visit is never handed a record nobody wrote", { timeout: 300_000 }, async () => {
    const outcomes: string[] = [];
    for (let chunk = 8; chunk <= 96; chunk += 4) {
      const wrong = await scanAcrossRepair(chunk, `{"kind":"note","text":"${"A".repeat(300)}`);
      if (wrong !== undefined) outcomes.push(wrong);
    }
    expect(outcomes).toEqual([]);
  });

  // a batch of two whose closing line is torn: its first line is whole (it ends in the batch mark, " \n"), read
  // and held while the batch waits for its closing line, which the repair replaces
  it("a torn batch (a whole first line, its closing line torn): no healthy file is called damaged, nothing misread", {
    timeout: 300_000,
  }, async () => {
    const outcomes: string[] = [];
    for (let chunk = 8; chunk <= 96; chunk += 8) {
      const wrong = await scanAcrossRepair(chunk, `{"kind":"note","text":"x","seq":10} \n{"kind":"note","text":"${"A".repeat(300)}`);
      if (wrong !== undefined) outcomes.push(wrong);
    }
    expect(outcomes).toEqual([]);
  });
});
