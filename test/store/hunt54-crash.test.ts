/**
 * Hunt 54: the fs store after a process killed (SIGKILL) inside its first
 * append, and several processes on one conversation. The kills are real and
 * land at an exact point: the child (fixtures/hunt54-child.ts) stops itself
 * in the store's `writeSync` (before it, or after part of the batch), and the
 * test kills it there.
 */
import fsModule from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { rec } from "./contract.js";
import { spawnScript, type Child } from "./fs-children.js";

const script = fileURLToPath(new URL("./fixtures/hunt54-child.ts", import.meta.url));
let dir: string;
const children: Child[] = [];
const file = (id: string): string => join(dir, "conversations", `${id}.jsonl`);
const child = (args: string[]): Child => {
  const c = spawnScript(script, args);
  children.push(c);
  return c;
};
/** Runs the child to its stop in the first append's write, and kills it there. */
const killedAt = async (mode: "before-write" | "mid-write", id: string, bytes = 0): Promise<void> => {
  const c = child([mode, dir, id, String(bytes)]);
  await c.saw((l) => l === "stopped");
  c.proc.kill("SIGKILL");
  expect(await c.exited).toBe(null);
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt54-"));
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

/** Counts the flushes (fsyncSync) made in this thread while `run` runs. */
async function countingFlushes(run: () => Promise<void>): Promise<number> {
  const mod = fsModule as unknown as Record<string, (...a: unknown[]) => unknown>;
  const sync = mod.fsyncSync!;
  let n = 0;
  mod.fsyncSync = (...a: unknown[]) => {
    n++;
    return sync(...a);
  };
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    mod.fsyncSync = sync;
    syncBuiltinESMExports();
  }
  return n;
}

describe("fs store: a process killed inside a conversation's first append", () => {
  it("killed after making the file, before writing: the empty file is no conversation (list agrees with read)", async () => {
    await killedAt("before-write", "c");
    expect((await stat(file("c"))).size).toBe(0); // the state the kill left: a file, empty
    const store = fsStore(dir);
    expect(await store.read("c")).toEqual([]);
    expect(await store.length!("c")).toBe(0);
    expect(await store.list!()).toEqual([]); // (was ["c"]: a conversation that holds nothing)
    expect(await store.append("c", [rec("one")], { expect: 0 })).toBe(1);
    expect(await store.list!()).toEqual(["c"]);
    expect((await fsStore(dir).read("c")).map((r) => [r.seq, r.kind])).toEqual([[1, "one"]]);
  });

  it("the first records written into a file a killed process left empty flush the folder too (the file's name may not be on disk yet)", async () => {
    await killedAt("before-write", "c");
    const store = fsStore(dir);
    // the file, then the folder that names it, as for a file this append makes (was 1: the name was never flushed)
    expect(await countingFlushes(async () => void (await store.append("c", [rec("one")])))).toBe(2);
    expect(await countingFlushes(async () => void (await store.append("c", [rec("two")])))).toBe(1);
  });

  it("killed part way through writing the first batch: the torn first line is no record and no conversation; the next append cuts it", async () => {
    await killedAt("mid-write", "c", 50);
    const raw = await readFile(file("c"), "utf8");
    expect(raw.length).toBe(50);
    expect(raw).not.toContain("\n");
    const store = fsStore(dir);
    expect(await store.read("c")).toEqual([]);
    expect(await store.list!()).toEqual([]); // (was ["c"])
    expect(await store.wait!("c", 0, 30)).toBe(false);
    expect(await store.append("c", [rec("one")], { expect: 0 })).toBe(1);
    const lines = (await readFile(file("c"), "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((l) => JSON.parse(l).kind)).toEqual(["one"]);
  });

  it("a first batch left without its closing line lists as nothing; a damaged first line lists (read refuses it: store-corrupt)", async () => {
    const conversations = join(dir, "conversations");
    await fsStore(dir).append("seed", [rec()]); // (makes the folder)
    await writeFile(join(conversations, "open.jsonl"), '{"functai_conversation":1,"kind":"a","at":"x","seq":1} \n{"functai_conv');
    await writeFile(join(conversations, "bad.jsonl"), "not json\n");
    await writeFile(join(conversations, "badopen.jsonl"), "not json \n");
    // first lines longer than list reads at first (64 KiB): one torn, one whole
    const long = `{"functai_conversation":1,"kind":"a","at":"x","text":"${"y".repeat(100_000)}","seq":1}`;
    await writeFile(join(conversations, "longtorn.jsonl"), long.slice(0, -5));
    await writeFile(join(conversations, "longwhole.jsonl"), `${long}\n`);
    const store = fsStore(dir);
    expect(await store.read("longtorn")).toEqual([]);
    expect(await store.length!("longwhole")).toBe(1);
    expect(await store.read("open")).toEqual([]);
    await expect(store.read("bad")).rejects.toMatchObject({ code: "store-corrupt" });
    await expect(store.read("badopen")).rejects.toMatchObject({ code: "store-corrupt" });
    expect(await store.list!()).toEqual(["bad", "badopen", "longwhole", "seed"]);
  });

  it("killed part way through a later batch: the records before stay, the torn line is never read, the next append with expect wins", async () => {
    await fsStore(dir).append("c", [rec("one"), rec("two")]);
    await killedAt("mid-write", "c", 30);
    const store = fsStore(dir);
    expect((await store.read("c")).map((r) => r.seq)).toEqual([1, 2]);
    expect(await store.list!()).toEqual(["c"]);
    await expect(store.append("c", [rec("x")], { expect: 3 })).rejects.toMatchObject({ code: "store-conflict" });
    expect(await store.append("c", [rec("three")], { expect: 2 })).toBe(3);
    expect((await fsStore(dir).read("c")).map((r) => [r.seq, r.kind])).toEqual([
      [1, "one"],
      [2, "two"],
      [3, "three"],
    ]);
  });
});

describe("fs store: a process killed while breaking a dead process's lock", () => {
  it("the breaker's own lock is left by a dead process too: the next append still lands, the records whole", async () => {
    await killedAt("before-write", "c"); // a lock left by a dead process (and an empty file)
    const breaker = child(["mid-break", dir, "c"]);
    await breaker.saw((l) => l === "stopped");
    breaker.proc.kill("SIGKILL");
    await breaker.exited;
    expect((await readdir(join(dir, "conversations"))).filter((n) => n.endsWith(".break"))).toHaveLength(1);
    // The dead breaker's lock is a link naming its process, as the dead holder's lock is: broken at once too. (Was
    // only once older than lockStaleMs: an hour here, so every append gave up with store-io after lockTimeoutMs.)
    const store = fsStore(dir, { lockStaleMs: 3_600_000, lockTimeoutMs: 20_000 });
    expect(await store.append("c", [rec("one")], { expect: 0 })).toBe(1);
    expect((await fsStore(dir).read("c")).map((r) => [r.seq, r.kind])).toEqual([[1, "one"]]);
  });
});

describe("fs store: two processes on one conversation", () => {
  it("both append with the same expect at once: exactly one wins, the other is store-conflict, the file holds one record more", async () => {
    await fsStore(dir).append("c", [rec("one"), rec("two")]);
    const go = join(dir, "go");
    for (let round = 0; round < 3; round++) {
      const length = 2 + round;
      const pair = [child(["append", dir, "c", String(length), `${go}${round}`]), child(["append", dir, "c", String(length), `${go}${round}`])];
      await new Promise((r) => setTimeout(r, 500)); // (both started and importing; the go file starts them together)
      await writeFile(`${go}${round}`, "");
      const said = await Promise.all(pair.map((c) => c.line((l) => l.startsWith("won ") || l.startsWith("lost "))));
      expect(said.sort()).toEqual(["lost store-conflict", `won ${length + 1}`]);
      expect((await fsStore(dir).read("c")).map((r) => r.seq)).toEqual(Array.from({ length: length + 1 }, (_, i) => i + 1));
    }
  });

  it("a wait in another process, begun before the file existed, sees the empty file a killed writer left and wakes for the first record", async () => {
    const waiter = child(["wait", dir, "c", "0", "50000"]); // (a generous bound: the machine is shared and slow)
    await waiter.saw((l) => l === "waiting");
    await killedAt("before-write", "c");
    await new Promise((r) => setTimeout(r, 200));
    expect(waiter.lines.filter((l) => l.startsWith("woke "))).toEqual([]); // (an empty file is no record)
    await fsStore(dir).append("c", [rec("one")]);
    expect(await waiter.line((l) => l.startsWith("woke "))).toBe("woke true");
  });

  it("a wait in another process wakes for this process's append", async () => {
    await fsStore(dir).append("c", [rec("one")]);
    const waiter = child(["wait", dir, "c", "1", "50000"]); // (a generous bound: the machine is shared and slow)
    await waiter.saw((l) => l === "waiting");
    await new Promise((r) => setTimeout(r, 200));
    await fsStore(dir).append("c", [rec("two")]);
    expect(await waiter.line((l) => l.startsWith("woke "))).toBe("woke true");
  });
});

describe("fs store: a read racing the append that cuts a crash's torn tail", () => {
  /**
   * The read's bytes come in two parts (a short read, as a read of pages racing a cut gets them): the first while
   * the crash's torn line is there, the rest after another store cut it and wrote the next record in its place.
   */
  it("never gives a record that was never written (half the torn line, half the record that replaced it)", async () => {
    const at = "2026-12-05T00:00:00.000Z";
    const note = (text: string) => ({ functai_conversation: 1, kind: "note", at, text });
    const writer = fsStore(dir);
    await writer.append("c", [note("one")]);
    const first = (await stat(file("c"))).size;
    const prefix = JSON.stringify(note("")).slice(0, -2); // `{…,"text":"`
    await writeFile(file("c"), `${prefix}${"A".repeat(300)}`, { flag: "a" }); // torn: a crash mid-write
    const mod = fsModule as unknown as Record<string, (...a: unknown[]) => unknown>;
    const read = mod.read!;
    let armed = true;
    mod.read = (fd: unknown, buf: unknown, off: unknown, len: unknown, pos: unknown, cb: unknown) => {
      if (!armed || typeof cb !== "function") return read(fd, buf, off, len, pos, cb);
      armed = false;
      const cut = first + prefix.length + 100 - (pos as number); // up to the middle of the torn line's text
      return read(fd, buf, off, Math.min(len as number, cut), pos, (e: unknown, n: unknown) => {
        // meanwhile: another store's append cuts the torn line and writes record 2 in its place
        void writer.append("c", [note("B".repeat(200))]).then(() => (cb as (e: unknown, n: unknown) => void)(e, n));
      });
    };
    syncBuiltinESMExports();
    let records: Awaited<ReturnType<ReturnType<typeof fsStore>["read"]>>;
    try {
      records = await fsStore(dir, { readCacheBytes: 0 }).read("c");
    } finally {
      mod.read = read;
      syncBuiltinESMExports();
    }
    expect(armed).toBe(false); // (the race happened)
    const texts = records.map((r) => (r as unknown as { text: string }).text);
    // what was written: record 1 alone (read before the append) or records 1 and 2 — never "AAA…BBB"
    expect([["one"], ["one", "B".repeat(200)]]).toContainEqual(texts);
    expect((await fsStore(dir).read("c")).map((r) => (r as unknown as { text: string }).text)).toEqual(["one", "B".repeat(200)]);
  });
});
