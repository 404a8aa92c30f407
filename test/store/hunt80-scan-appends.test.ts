/**
 * The fs store's `scan` streams a file larger than it reads whole (over 4 MiB) in chunks, with no lock, while
 * other processes append. Hunt 76 made it read again from the last whole line whenever the file changed under a
 * read (a crash's torn tail may be cut and written over meanwhile). But every plain append of another process
 * changes the file too: under a steady stream of appends (a busy conversation written by another server), a
 * chunk read that saw one was read again, and once that happened 1,000 times in a row the scan failed with
 * `store-io` ("the file changed under each of 1000 reads"): a resume or an export of a long conversation failed
 * because someone else was writing to it. Only bytes that changed (a torn tail cut under the read, a file got
 * shorter) call for reading again; appends after them never do.
 *
 * A real child process appends one record after another (each through its own store: lock, write, fsync) for
 * the whole test, while this process scans the file. Whether an append lands inside a given read is a matter of
 * timing (on this machine about one read in two of a megabyte, and a run of 25 in a row at most), so the first
 * test makes it certain: each read of the conversation file returns only once the file has grown under it (the
 * child's next append; the read itself is the real one). That is a stream of appends quicker than reads, as on
 * a fast disk with a busy writer. The second scans with nothing held, while the child appends. No timing is
 * asserted: each scan must give the records as written, in order, and end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { appendFileSync, existsSync, fstatSync, mkdtempSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";

/** While set, a read of the store's files returns only once the file has grown since the read began (see above). */
let overlap = false;
vi.mock("../../adapters/node-fs/files.js", async (importOriginal) => {
  const files = await importOriginal<typeof import("../../adapters/node-fs/files.js")>();
  const readAt: typeof files.readAt = async (fd, buf, offset, length, position) => {
    const before = fstatSync(fd).size;
    const n = await files.readAt(fd, buf, offset, length, position);
    // (bounded: a child that stopped appending fails the test instead of holding it)
    for (let waited = 0; overlap && fstatSync(fd).size === before; waited++) {
      if (waited > 30_000) throw new Error("the appender stopped appending");
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return n;
  };
  return { ...files, readAt };
});

const APPENDER = fileURLToPath(new URL("./fixtures/hunt80-appender.ts", import.meta.url));
/**
 * Where appends are quickest: a memory file system (Linux's /dev/shm: an fsync costs nothing, as on a fast SSD),
 * so the other process appends far more often than a chunk of a megabyte is read; else the temporary folder.
 */
const FAST = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts the appender on `dir`'s conversation `c`; resolves once it has appended its first record. */
function startAppender(dir: string): Promise<{ child: ChildProcess; stop: () => Promise<number> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=functai-source", APPENDER, dir, "c"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on("exit", (code) => {
      const n = /appended (\d+)/.exec(out)?.[1];
      if (code === 0 && n !== undefined) resolve(Number(n));
      else reject(new Error(`appender exited ${code}: ${out} ${err}`));
    });
  });
  exited.catch(() => undefined);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("appending"))
        resolve({
          child,
          stop: () => {
            child.stdin!.end();
            return exited;
          },
        });
    });
    exited.catch(reject);
  });
}

/** A conversation `c` of `count` records of about `size` bytes each, each a batch of its own (as one append writes it). */
async function writeConversation(dir: string, count: number, size: number, batch = 1): Promise<void> {
  const text = (seq: number): string => `${seq}:`.padEnd(size, "x");
  const maker = fsStore(dir);
  if (batch > 1) {
    // (batches of `batch` records, each one append: its lines but the last end in " \n", the store's batch mark)
    for (let seq = 1; seq <= count; seq += batch)
      await maker.append(
        "c",
        Array.from({ length: Math.min(batch, count - seq + 1) }, (_, i) => ({ kind: "note", text: text(seq + i) })),
      );
    return maker.close!();
  }
  await maker.append("c", [{ kind: "note", text: text(1) }]); // (the folder and file made by the store, with its modes)
  await maker.close!();
  const lines: string[] = [];
  for (let seq = 2; seq <= count; seq++) lines.push(`${JSON.stringify({ kind: "note", text: text(seq), seq })}\n`);
  appendFileSync(join(dir, "conversations", "c.jsonl"), lines.join(""));
}

const COUNT = 600;
const SIZE = 16 << 10; // 600 records of 16 KiB: about 9.4 MiB, over the 4 MiB a scan reads whole

/** Scans `c` of `dir` with a store of its own (`options`): "ok" when it gave every record as written, in order, else what went wrong. */
async function scanned(dir: string, options: { scanChunkBytes?: number }): Promise<string> {
  const store = fsStore(dir, options);
  const seqs: number[] = [];
  let wrong = 0;
  try {
    const length = await store.scan!("c", 0, (r) => {
      seqs.push(r.seq);
      const text = (r as { text?: unknown }).text;
      if (r.seq <= COUNT ? text !== `${r.seq}:`.padEnd(SIZE, "x") : (r as { from?: unknown }).from !== "appender") wrong++;
    });
    const inOrder = seqs.every((seq, i) => seq === i + 1);
    return length >= COUNT && inOrder && seqs.length === length && wrong === 0 ? "ok" : `scan gave ${length}, ${seqs.length} visited, ${wrong} wrong`;
  } catch (e) {
    return `refused: ${(e as { code?: string }).code} ${(e as Error).message.slice(0, 200)}`;
  } finally {
    await store.close!();
  }
}

describe("scan of a large file while another process keeps appending", () => {
  it("an append under every read: the scan ends with every record as written, in order (was store-io after 1,000 reads again)", {
    timeout: 300_000,
  }, async () => {
    const dir = mkdtempSync(join(FAST, "hunt80-scan-"));
    dirs.push(dir);
    await writeConversation(dir, COUNT, SIZE);
    const appender = await startAppender(dir);
    let outcome: string;
    overlap = true;
    try {
      outcome = await scanned(dir, {});
    } finally {
      overlap = false;
      expect(await appender.stop(), "the other process kept appending").toBeGreaterThan(0);
    }
    expect(outcome).toBe("ok");
  });

  it("an append under every read, batches larger than a chunk: the scan ends (it read the same batch again for ever)", {
    timeout: 300_000,
  }, async () => {
    // A batch of 20 records of 16 KiB (320 KiB, one append: a turn's records with large tool outputs) read 64 KiB at a
    // time: its first lines are read, not yet given out, when the next chunk sees an append. Those lines were read
    // again from the batch's start, then the next chunk saw an append again: no read went past the batch, and no
    // run of reads again was ever 1,000 long (each read again of the batch's start went through), so the scan never
    // ended. Bounded at 120 s (it takes a few seconds; without the fix it never ends).
    const dir = mkdtempSync(join(FAST, "hunt80-scan-"));
    dirs.push(dir);
    await writeConversation(dir, COUNT, SIZE, 20);
    const appender = await startAppender(dir);
    let outcome: string;
    overlap = true;
    try {
      outcome = await Promise.race([
        scanned(dir, { scanChunkBytes: 64 << 10 }),
        new Promise<string>((resolve) => setTimeout(() => resolve("never ended (120 s)"), 120_000)),
      ]);
    } finally {
      overlap = false;
      expect(await appender.stop(), "the other process kept appending").toBeGreaterThan(0);
    }
    expect(outcome).toBe("ok");
  });

  it("appends as they come, chunks of every size: each scan ends with every record as written, in order", { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(FAST, "hunt80-scan-"));
    dirs.push(dir);
    await writeConversation(dir, COUNT, SIZE);
    const appender = await startAppender(dir);
    const outcomes: string[] = [];
    const chunks = [undefined, 64 << 10, 6 << 20, 16 << 20];
    try {
      for (const chunk of chunks) outcomes.push(`${chunk ?? "default"}: ${await scanned(dir, chunk === undefined ? {} : { scanChunkBytes: chunk })}`);
    } finally {
      expect(await appender.stop(), "the other process kept appending").toBeGreaterThan(0);
    }
    expect(outcomes).toEqual(chunks.map((chunk) => `${chunk ?? "default"}: ok`));
  });
});
