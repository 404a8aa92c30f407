import { spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fsModule, { readFileSync, readlinkSync } from "node:fs";
import { appendFile, lstat, lutimes, mkdtemp, open, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { acquire, parseTarget } from "../../adapters/node-fs/lock.js";
import { isFunctaiError } from "../../src/errors.js";
import { defaultStore } from "../../runtime/default-store.node.js";
import { codeOf, get, rec, storeContract } from "./contract.js";
import { spawnChild, type Child } from "./fs-children.js";

const temp = (): Promise<string> => mkdtemp(join(tmpdir(), "functai-fs-"));

storeContract("fs store", async () => {
  const dir = await temp();
  return {
    store: fsStore(dir, { pollMs: 10 }),
    reopen: async () => fsStore(dir, { pollMs: 10 }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

storeContract("default store in Node (fs)", async () => {
  const dir = await temp();
  return { store: defaultStore(dir), reopen: async () => defaultStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe("fs store, on disk", () => {
  let dir: string;
  const file = (id: string): string => join(dir, "conversations", `${id}.jsonl`);
  const lines = async (id: string): Promise<string[]> => (await readFile(file(id), "utf8")).split("\n");
  beforeEach(async () => {
    dir = await temp();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is owner-only: directories 0o700, files 0o600, no lock left behind", async () => {
    const nested = join(dir, "a", "b");
    const store = fsStore(nested);
    expect(store.durability).toBe("disk");
    await store.append("c", [rec()]);
    for (const d of [join(dir, "a"), nested, join(nested, "conversations")]) {
      expect(((await stat(d)).mode & 0o777).toString(8), d).toBe("700");
    }
    expect(((await stat(join(nested, "conversations", "c.jsonl"))).mode & 0o777).toString(8)).toBe("600");
    // besides the file, only this process's holder link (locks are hard links to it while held): no lock left behind
    const entries = await readdir(join(nested, "conversations"));
    expect(entries.filter((n) => !n.startsWith(".holder-"))).toEqual(["c.jsonl"]);
    for (const n of entries.filter((e) => e.startsWith(".holder-"))) {
      expect(n).toMatch(new RegExp(`^\\.holder-[0-9a-f]{8}-${process.pid}-[0-9a-f]{11}$`));
      expect(parseTarget(await readlink(join(nested, "conversations", n)))?.pid).toBe(process.pid);
    }
  });

  it("writes one JSON record per line with its seq; a batch's lines are marked until its last", async () => {
    const store = fsStore(dir);
    await store.append("c", [rec("a"), rec("b"), rec("c")]);
    await store.append("c", [rec("d")]);
    const text = await readFile(file("c"), "utf8");
    const raw = text.split("\n");
    expect(raw.pop()).toBe(""); // ends with a newline
    expect(raw.map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3, 4]);
    expect(raw.map((l) => l.endsWith(" "))).toEqual([true, true, false, false]);
  });

  it("a record JSON cannot hold is refused before anything is written", async () => {
    const store = fsStore(dir);
    const cyclic: Record<string, unknown> = rec();
    cyclic["self"] = cyclic;
    await expect(store.append("c", [rec(), { ...rec(), big: 10n }])).rejects.toThrow(/not JSON/);
    await expect(store.append("c", [rec(), cyclic])).rejects.toThrow(/not JSON/);
    await expect(stat(file("c"))).rejects.toThrow(); // not even created
    await store.append("c", [rec()]);
    await expect(store.append("c", [cyclic])).rejects.toThrow(/not JSON/);
    expect((await store.read("c")).map((r) => r.seq)).toEqual([1]);
  });

  it("calls onFlush once per fsync of a data file, never for empty or refused appends", async () => {
    let flushes = 0;
    const store = fsStore(dir, { onFlush: () => flushes++ });
    await store.append("c", [rec(), rec(), rec()]);
    await store.append("c", [rec()], { durable: true });
    await store.append("c", []);
    await codeOf(() => store.append("c", [rec()], { expect: 0 }));
    expect(flushes).toBe(2);
  });

  it("an append told durable: false is written without an fsync (another store reads it at once), unless it makes the file", async () => {
    let flushes = 0;
    const store = fsStore(dir, { onFlush: () => flushes++ });
    const note = (text: string) => rec("note", { text });
    await store.append("c", [note("made")], { durable: false }); // the file's first batch: flushed, its name with it
    expect(flushes).toBe(1);
    expect(await store.append("c", [note("rides")], { durable: false, expect: 1 })).toBe(2);
    expect(flushes).toBe(1);
    expect((await fsStore(dir).read("c")).map((r) => get(r, "text"))).toEqual(["made", "rides"]);
    await store.append("c", [note("kept")], { expect: 2 }); // its fsync keeps the batch before it too
    expect(flushes).toBe(2);
    expect(await codeOf(() => store.append("c", [note("late")], { durable: false, expect: 2 }))).toBe("store-conflict");
  });

  describe("open files kept between appends", () => {
    it("a file moved away meanwhile is made anew; the moved one is not written to", async () => {
      const store = fsStore(dir);
      await store.append("c", [rec("a"), rec("b")]);
      await rename(file("c"), `${file("c")}.moved`);
      expect(await store.append("c", [rec("c")])).toBe(1);
      expect((await lines("c")).filter(Boolean).map((l) => JSON.parse(l).seq)).toEqual([1]);
      expect((await readFile(`${file("c")}.moved`, "utf8")).split("\n").filter(Boolean)).toHaveLength(2);
    });

    it("a file replaced by another (a new inode) is appended at its own end", async () => {
      const store = fsStore(dir);
      await store.append("c", [rec("a")]);
      await fsStore(dir).append("other", [rec("x"), rec("y"), rec("z")]);
      await rename(file("other"), file("c"));
      expect(await store.append("c", [rec("d")], { expect: 3 })).toBe(4);
      expect((await store.read("c")).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    });

    it("are closed by close(); the store then refuses nothing it did before", async () => {
      const store = fsStore(dir);
      await store.append("c", [rec()]);
      const openFds = (): Promise<number> => readdir("/proc/self/fd").then((fds) => fds.length);
      const before = await openFds();
      await store.close!();
      expect(await openFds()).toBe(before - 1);
      expect(await fsStore(dir).append("c", [rec()], { expect: 1 })).toBe(2);
    });
  });

  describe("scan: records visited, none kept", () => {
    const visited = async (store: ReturnType<typeof fsStore>, id: string, after = 0) => {
      const out: Record<string, unknown>[] = [];
      const length = await store.scan!(id, after, (r) => void out.push(r as unknown as Record<string, unknown>));
      return { length, out };
    };

    // (a file of up to 4 MiB is read whole when the read cache may keep it: without the cache, every file is streamed)
    for (const [chunk, cache] of [[3, 0], [64, 0], [1 << 20, 0], [3, undefined]] as const) {
      it(`visits what read returns, from any \`after\`, ${cache === 0 ? `streamed in chunks of ${chunk} bytes (lines and batches across chunks)` : "read whole (a short file, kept)"}`, async () => {
        const store = fsStore(dir, { scanChunkBytes: chunk, ...(cache === undefined ? {} : { readCacheBytes: cache }) });
        await store.append("c", [rec("a", { text: "x".repeat(200) })]);
        await store.append("c", [rec("b"), rec("c"), rec("d")]);
        await store.append("c", [rec("e")]);
        const all = await store.read("c");
        for (let after = 0; after <= 6; after++) {
          const { length, out } = await visited(store, "c", after);
          expect(length).toBe(5);
          expect(out).toEqual(all.filter((r) => r.seq > after));
          expect(out.every((r) => Object.isFrozen(r))).toBe(true);
        }
        expect(await visited(store, "nothing-here")).toEqual({ length: 0, out: [] });
      });
    }

    it("reads text of several bytes per character cut across chunks; an append after a torn line ending inside a character cuts it at the line's first byte", async () => {
      const words = ["日本語", "😀 émoji", "a", "Ωμέγα ☃", "x".repeat(40) + "—"];
      for (const [chunk, cache] of [[3, 0], [5, 0], [1 << 20, undefined]] as const) {
        const id = `u${chunk}`;
        const store = fsStore(dir, { scanChunkBytes: chunk, ...(cache === undefined ? {} : { readCacheBytes: cache }) });
        const note = (text: string) => rec("note", { text });
        await store.append(id, [note(words[0]!), note(words[1]!)]);
        await store.append(id, [note(words[2]!), note(words[3]!), note(words[4]!)]);
        expect((await visited(store, id, 1)).out.map((r) => r.text)).toEqual(words.slice(1));
        expect((await fsStore(dir, { readCacheBytes: 0 }).read(id)).map((r) => (r as { text?: string }).text)).toEqual(words);
        // a torn last line that ends inside a character: left out, and cut at its first byte by the next append
        const torn = Buffer.from('{"functai_conversation":1,"kind":"note","seq":6,"text":"日本', "utf8");
        await appendFile(file(id), torn.subarray(0, torn.length - 1));
        expect((await visited(fsStore(dir, { scanChunkBytes: chunk, readCacheBytes: 0 }), id)).length).toBe(5);
        expect(await fsStore(dir, { scanChunkBytes: chunk }).append(id, [note("ünd")], { expect: 5 })).toBe(6);
        const texts = (await lines(id)).filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);
        expect(texts).toEqual([...words, "ünd"]);
      }
    });

    it("leaves a torn tail out, and refuses damage before the last line (store-corrupt)", async () => {
      const store = fsStore(dir, { scanChunkBytes: 16, readCacheBytes: 0 });
      await store.append("c", [rec("a"), rec("b")]);
      await appendFile(file("c"), '{"functai_conversation":1,"kind":"note","seq":3,"te');
      expect((await visited(store, "c")).out.map((r) => r.seq)).toEqual([1, 2]);
      const raw = await lines("c");
      await writeFile(file("c"), [raw[0], "{oops", raw[1], ""].join("\n"));
      expect(await codeOf(() => store.scan!("c", 0, () => undefined))).toBe("store-corrupt");
    });

    it("a visit that throws ends the scan with its own error", async () => {
      const store = fsStore(dir);
      await store.append("c", [rec(), rec()]);
      const mine = new RangeError("enough");
      await expect(store.scan!("c", 0, () => { throw mine; })).rejects.toBe(mine);
    });

    it("a read after a scan reads on from where it ended: what another process appended since, and only that", async () => {
      const store = fsStore(dir, { readCacheBytes: 0 });
      await fsStore(dir).append("c", [rec("a"), rec("b")]);
      expect((await visited(store, "c")).length).toBe(2);
      await fsStore(dir).append("c", [rec("c")]);
      // the scanned bytes are not read again: damage there (same length, same inode) goes unseen by a read on from the scan…
      const text = await readFile(file("c"), "utf8");
      const handle = await open(file("c"), "r+");
      await handle.write("#".repeat(10), 0);
      await handle.close();
      expect((await store.read("c", 2)).map((r) => r.seq)).toEqual([3]);
      expect(await store.read("c", 3)).toEqual([]);
      // …and is refused by a read of it all
      expect(await codeOf(() => store.read("c"))).toBe("store-corrupt");
      await writeFile(file("c"), text);
      expect((await store.read("c")).map((r) => r.seq)).toEqual([1, 2, 3]);
    });
  });

  describe("where flushes wait", () => {
    /** Counts the flushes made in this thread (fsyncSync) and in the pool (fsync), slowing the ones in this thread by `slowMs`. */
    const counting = (slowMs: number) => {
      const mod = fsModule as unknown as Record<string, (...a: unknown[]) => unknown>;
      const [sync, pooled] = [mod.fsyncSync!, mod.fsync!];
      const seen = { thread: 0, pool: 0 };
      mod.fsyncSync = (...a: unknown[]) => {
        seen.thread++;
        const until = Date.now() + slowMs;
        while (Date.now() < until); // a slow disk, in this thread
        return sync(...a);
      };
      mod.fsync = (...a: unknown[]) => {
        seen.pool++;
        return pooled(...a);
      };
      syncBuiltinESMExports();
      return {
        seen,
        restore: () => {
          mod.fsyncSync = sync;
          mod.fsync = pooled;
          syncBuiltinESMExports();
        },
      };
    };

    it("every flush is made in this thread, under the lock, even a slow one (no await while the lock is held)", async () => {
      await fsStore(dir).append("slow", [rec()]); // the file exists first: a new file's directory is flushed too
      const slow = counting(20);
      try {
        const store = fsStore(dir);
        for (let i = 0; i < 5; i++) await store.append("slow", [rec()]);
        expect(slow.seen).toEqual({ thread: 5, pool: 0 });
      } finally {
        slow.restore();
      }
      expect((await fsStore(dir).read("slow")).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it("a new conversation file's directory is flushed once, in this thread too", async () => {
      const c = counting(0);
      try {
        const store = fsStore(dir);
        await store.append("new", [rec()]);
        expect(c.seen).toEqual({ thread: 2, pool: 0 }); // the file, then the directory that names it
        await store.append("new", [rec()]);
        expect(c.seen).toEqual({ thread: 3, pool: 0 });
      } finally {
        c.restore();
      }
    });
  });

  describe("torn tails", () => {
    const tails: [string, string][] = [
      ["half a line, no newline", '{"functai_conversation":1,"kind":"note","at":"x","seq":3,"te'],
      ["NUL bytes (a crash after the size grew)", "\0\0\0\0\0\0\0\0"],
      ["a batch without its closing line", '{"functai_conversation":1,"kind":"a","at":"x","seq":3} \n{"functai_conversation":1,"kind":"b","at":"x","seq":4} \n'],
      ["a batch cut inside its last line", '{"functai_conversation":1,"kind":"a","at":"x","seq":3} \n{"functai_conversation":1,"kind":"b","at":"x"'],
      // Longer than the batch that follows it: overwriting in place would leave its end behind.
      ["a long batch that never closed", Array.from({ length: 20 }, (_, i) => `{"functai_conversation":1,"kind":"x","at":"x","seq":${3 + i}} \n`).join("")],
    ];
    for (const [name, tail] of tails) {
      for (const same of [true, false]) {
        it(`${name}: ignored by read, cut by the next append (${same ? "same" : "fresh"} store)`, async () => {
          const writer = fsStore(dir, { pollMs: 5 });
          await writer.append("c", [rec("one"), rec("two")]);
          await appendFile(file("c"), tail);
          const store = same ? writer : fsStore(dir, { pollMs: 5 });
          expect((await store.read("c")).map((r) => [r.seq, r.kind])).toEqual([[1, "one"], [2, "two"]]);
          expect(await store.length!("c")).toBe(2);
          expect(await store.wait!("c", 2, 40)).toBe(false);
          expect(await store.append("c", [rec("three"), rec("four")], { expect: 2 })).toBe(4);
          const raw = await lines("c");
          expect(raw.pop()).toBe("");
          expect(raw.map((l) => [JSON.parse(l).seq, JSON.parse(l).kind])).toEqual([[1, "one"], [2, "two"], [3, "three"], [4, "four"]]);
          expect((await fsStore(dir).read("c")).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
        });
      }
    }
  });

  describe("damage before the last line is refused (store-corrupt), never skipped", () => {
    const damage = async (id: string, edit: (lines: string[]) => string[]): Promise<Buffer> => {
      const store = fsStore(dir);
      await store.append(id, [rec(), rec()]);
      await store.append(id, [rec()]);
      await store.append(id, [rec()]);
      const raw = await lines(id);
      raw.pop();
      await writeFile(file(id), edit(raw).join("\n") + "\n");
      return readFile(file(id));
    };
    const refused = async (id: string, line: number): Promise<void> => {
      const before = await readFile(file(id));
      const store = fsStore(dir);
      for (const call of [() => store.read(id), () => store.read(id, 3), () => store.length!(id), () => store.append(id, [rec()])]) {
        let error: unknown;
        await call().catch((e: unknown) => (error = e));
        expect(isFunctaiError(error, "store-corrupt"), String(error)).toBe(true);
        expect((error as Error).message).toContain(`${file(id)}:${line}:`);
      }
      expect(await readFile(file(id))).toEqual(before); // nothing cut, nothing written
    };

    it("a garbled line in the middle", async () => {
      await damage("c", (l) => [l[0]!, '{"functai_conver', l[2]!, l[3]!]);
      await refused("c", 2);
    });
    it("an empty line in the middle", async () => {
      await damage("c", (l) => [l[0]!, l[1]!, "", l[2]!, l[3]!]);
      await refused("c", 3);
    });
    it("seq numbers that skip", async () => {
      await damage("c", (l) => [l[0]!, l[1]!, l[3]!]);
      await refused("c", 3);
    });
    it("seq numbers that repeat", async () => {
      await damage("c", (l) => [l[0]!, l[1]!, l[2]!, l[2]!, l[3]!]);
      await refused("c", 4);
    });
    it("a last line that parses but has the wrong seq (not a torn write)", async () => {
      await damage("c", (l) => [l[0]!, l[1]!, l[2]!, l[3]!.replace('"seq":4', '"seq":7')]);
      await refused("c", 4);
    });
    it("a line that is JSON but not an object", async () => {
      await damage("c", (l) => [l[0]!, "[1,2]", l[2]!, l[3]!]);
      await refused("c", 2);
    });
    it("damage appearing after the store cached the file", async () => {
      const store = fsStore(dir);
      await store.append("c", [rec(), rec(), rec()]);
      const raw = await lines("c");
      await writeFile(file("c"), [raw[0], "{oops", raw[2], ""].join("\n"));
      expect(await codeOf(() => store.append("c", [rec()], { expect: 3 }))).toBe("store-corrupt");
      expect(await codeOf(() => store.read("c"))).toBe("store-corrupt");
    });
  });

  describe("the lock", () => {
    const lockOf = (id: string): string => `${file(id)}.lock`;
    const deadPid = (): number => {
      const child = spawnSync(process.execPath, ["-e", ""]);
      return child.pid!;
    };
    /** (An append lets its lock go before it resolves: nothing to wait for.) */
    const letGo = (): Promise<void> => Promise.resolve();
    const hash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 8);
    const pidNamespace = (() => {
      try {
        return readlinkSync("/proc/self/ns/pid");
      } catch {
        return "";
      }
    })();
    /** The tag a process of this host begins its lock tokens with (its pid and start time), or undefined without /proc. */
    const tagOf = (pid: number): string | undefined => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return hash(`${pid}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`);
      } catch {
        return undefined;
      }
    };
    /** How a link names a host: its name and the pid namespace its pids are counted in. */
    const hostHash = (name: string, namespace = pidNamespace): string => hash(`${name}\0${namespace}`);

    it("is a symbolic link naming its holder in under 60 bytes (kept in the inode), gone once released", async () => {
      await fsStore(dir).append("c", [rec()]); // makes the directory
      const release = await acquire(lockOf("c"), { staleMs: 5_000, timeoutMs: 5_000 });
      const target = await readlink(lockOf("c"));
      expect((await lstat(lockOf("c"))).isSymbolicLink()).toBe(true);
      // Held: an append waits for it and gives up.
      expect(await codeOf(() => fsStore(dir, { lockTimeoutMs: 200 }).append("c", [rec()]))).toBe("store-io");
      release();
      expect(Buffer.byteLength(target)).toBeLessThan(60);
      expect(parseTarget(target)).toEqual({ pid: process.pid, host: hostHash(hostname()), token: expect.stringMatching(/^[0-9a-f]{16}$/), format: "link" });
      await expect(lstat(lockOf("c"))).rejects.toThrow();
      expect(parseTarget("fl1:0:00000000:0000000000000000")).toBeUndefined();
      expect(parseTarget(`fl1:12:${hostHash("x")}:0123456789abcdef trailing`)).toBeUndefined();
    });

    it("a link naming this host but another pid namespace (another container) is never broken", async () => {
      await fsStore(dir).append("c", [rec()]);
      await letGo();
      const dead = deadPid();
      await symlink(`fl1:${dead}:${hostHash(hostname(), "pid:[1]")}:0123456789abcdef`, lockOf("c"));
      const error = await fsStore(dir, { lockStaleMs: 100, lockTimeoutMs: 300 }).append("c", [rec()]).catch((e: unknown) => e);
      expect(isFunctaiError(error, "store-io")).toBe(true);
      expect((error as Error).message).toContain(`pid ${dead} on another host`);
    });

    // Locks as this version makes them (symlinks), and as the earlier one did (a file of JSON): both honoured, both broken.
    const formats = {
      symlink: {
        plant: async (path: string, pid: number | undefined, host: string, live = false) => {
          // (a live holder's token begins with its tag, a hash of its pid and start time, where /proc tells it)
          const token = `${(live && tagOf(pid!)) || "01234567"}89abcdef`;
          await symlink(pid === undefined ? "not a holder" : `fl1:${pid}:${hostHash(host)}:${token}`, path);
        },
      },
      "file (earlier format)": {
        plant: async (path: string, pid: number | undefined, host: string) => {
          await writeFile(path, pid === undefined ? "" : JSON.stringify({ pid, host, token: "t", at: new Date().toISOString() }), { mode: 0o600 });
        },
      },
    };
    for (const [format, { plant: put }] of Object.entries(formats)) {
      describe(`as a ${format}`, () => {
        const plant = async (id: string, pid: number | undefined, ageMs: number, host = hostname(), live = false): Promise<void> => {
          await fsStore(dir).append(id, [rec()]);
          await letGo();
          await put(lockOf(id), pid, host, live);
          const then = new Date(Date.now() - ageMs);
          await lutimes(lockOf(id), then, then);
        };

        it("an old lock whose pid is dead is broken", async () => {
          await plant("c", deadPid(), 10_000);
          const t0 = Date.now();
          expect(await fsStore(dir, { lockStaleMs: 1_000 }).append("c", [rec()], { expect: 1 })).toBe(2);
          expect(Date.now() - t0).toBeLessThan(2_000);
          await letGo();
          await expect(lstat(lockOf("c"))).rejects.toThrow();
        });

        it("an old lock that names no holder is broken", async () => {
          await plant("c", undefined, 10_000);
          expect(await fsStore(dir, { lockStaleMs: 1_000 }).append("c", [rec()])).toBe(2);
        });

        if (format === "symlink") {
          it("a dead pid's lock is broken at once, however young (a link names its holder from its first instant)", async () => {
            await plant("c", deadPid(), 0);
            const t0 = Date.now();
            expect(await fsStore(dir, { lockStaleMs: 60_000 }).append("c", [rec()])).toBe(2);
            expect(Date.now() - t0).toBeLessThan(1_000);
          });
        } else {
          it("a dead pid's lock is not broken while it is young (the file may not have its holder written yet)", async () => {
            await plant("c", deadPid(), 0);
            const t0 = Date.now();
            expect(await fsStore(dir, { lockStaleMs: 600 }).append("c", [rec()])).toBe(2);
            expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
          });
        }

        it("an old lock whose holder lives is waited for, then the append gives up (store-io), writing nothing", async () => {
          await plant("c", process.ppid, 60_000, hostname(), true);
          const store = fsStore(dir, { lockStaleMs: 100, lockTimeoutMs: 300 });
          const error = await store.append("c", [rec()]).catch((e: unknown) => e);
          expect(isFunctaiError(error, "store-io")).toBe(true);
          expect((error as Error).message).toContain(`pid ${process.ppid} on this host`);
          expect(await store.length!("c")).toBe(1);
        });

        it("a lock held on another host is never broken", async () => {
          await plant("c", deadPid(), 60_000, "some-other-host");
          const error = await fsStore(dir, { lockStaleMs: 100, lockTimeoutMs: 300 }).append("c", [rec()]).catch((e: unknown) => e);
          expect(isFunctaiError(error, "store-io")).toBe(true);
          expect((error as Error).message).toMatch(/on (some-other-host|another host)/);
        });

        it("a lock left with our own pid by an earlier process (pid reuse) is broken", async () => {
          await plant("c", process.pid, 10_000);
          expect(await fsStore(dir, { lockStaleMs: 1_000 }).append("c", [rec()])).toBe(2);
        });
      });
    }
  });
});

describe("fs store across processes", () => {
  let dir: string;
  let children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = await temp();
    children = [];
  });
  afterEach(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]): Child => {
    const child = spawnChild(args);
    children.push(child.proc);
    return child;
  };

  /** Checks the file: seqs 1..N, every batch whole, contiguous and once; returns the batches in it. */
  const audit = async (conversation: string): Promise<Set<string>> => {
    const records = await fsStore(dir).read(conversation);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const batches = new Set<string>();
    for (let k = 0; k < records.length; ) {
      const first = records[k]!;
      const batch = String(get(first, "batch"));
      const size = Number(get(first, "size"));
      expect(batches.has(batch), `batch ${batch} twice`).toBe(false);
      batches.add(batch);
      for (let i = 0; i < size; i++) {
        expect([get(records[k + i], "batch"), get(records[k + i], "i")]).toEqual([batch, i]);
      }
      k += size;
    }
    return batches;
  };
  const acked = (c: Child): string[] => c.lines.filter((l) => l.startsWith("ack ")).map((l) => l.split(" ")[1]!);

  it("several processes appending with expect and retries: every acknowledged batch once, seqs 1..N", async () => {
    const writers = Array.from({ length: 4 }, (_, i) => run("append", dir, "shared", "25", `w${i}`));
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0, 0, 0]);
    const inFile = await audit("shared");
    const all = writers.flatMap(acked);
    expect(all).toHaveLength(100);
    expect([...inFile].sort()).toEqual([...all].sort());
    // batch sizes cycle 1, 2, 3
    const perWriter = Array.from({ length: 25 }, (_, b) => 1 + (b % 3)).reduce((a, b) => a + b, 0);
    expect(await fsStore(dir).length!("shared")).toBe(4 * perWriter);
  });

  it("a lock held by another thread of the same process is waited for, never broken as a dead process's", async () => {
    await fsStore(dir).append("c", [rec()]);
    const child = run("thread-hold", dir, "c");
    expect(await child.line((l) => l.startsWith("append "))).toBe("append store-io");
    expect(await child.exited).toBe(0);
    expect(await fsStore(dir).length!("c")).toBe(1);
  });

  it("a process appending without a pause lets the lock go after each append and steps aside for a waiting process", async () => {
    const burst = run("burst", dir, "c");
    await burst.saw((l) => l === "bursting");
    const t0 = Date.now();
    const n = await fsStore(dir, { lockTimeoutMs: 5_000 }).append("c", [rec("from outside")]);
    expect(Date.now() - t0).toBeLessThan(2_000);
    await burst.saw((l) => l.startsWith("appended "));
    expect(await burst.exited).toBe(0);
    const records = await fsStore(dir).read("c");
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    expect(records.filter((r) => get(r, "kind") !== "burst")).toEqual([expect.objectContaining({ seq: n })]);
    expect(records.length).toBeGreaterThan(n); // it went on after us
  });

  it("a process killed (SIGKILL) while holding the lock does not block the others for ever", async () => {
    await fsStore(dir).append("c", [rec()]);
    const holder = run("hold", dir, "c");
    await holder.saw((l) => l === "locked");
    // The lock is real across processes: while the holder lives, nobody gets in.
    expect(await codeOf(() => fsStore(dir, { lockTimeoutMs: 300 }).append("c", [rec()]))).toBe("store-io");
    holder.proc.kill("SIGKILL");
    expect(await holder.exited).toBe(null);
    const t0 = Date.now();
    expect(await fsStore(dir, { lockStaleMs: 500 }).append("c", [rec()], { expect: 1 })).toBe(2);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it("a lock is a hard link to its process's holder link; the link goes when its process exits, a killed one's with the next process to lock there", async () => {
    await fsStore(dir).append("c", [rec()]);
    const folder = join(dir, "conversations");
    const linksOf = async (pid: number): Promise<string[]> => (await readdir(folder)).filter((n) => n.startsWith(".holder-") && n.split("-")[2] === String(pid));
    const holder = run("hold", dir, "c");
    await holder.saw((l) => l === "locked");
    const pid = holder.proc.pid!;
    const lock = join(folder, "c.jsonl.lock");
    const st = await lstat(lock);
    expect(st.isSymbolicLink()).toBe(true);
    expect(st.nlink).toBe(2); // the lock and the holder's link: one inode
    expect(parseTarget(await readlink(lock))?.pid).toBe(pid);
    const [link] = await linksOf(pid);
    expect(link).toBeDefined();
    expect((await lstat(join(folder, link!))).ino).toBe(st.ino);
    holder.proc.kill("SIGKILL");
    await holder.exited;
    expect(await linksOf(pid)).toEqual([link]); // nobody has looked yet
    // a process that locks here next: it breaks the dead holder's lock, sweeps its link, and takes its own away when it exits
    const next = run("append", dir, "c", "2", "next", "500");
    expect(await next.exited).toBe(0);
    expect(await linksOf(pid)).toEqual([]);
    expect(await linksOf(next.proc.pid!)).toEqual([]);
    await expect(lstat(lock)).rejects.toThrow();
    expect(await fsStore(dir).length!("c")).toBe(1 + 1 + 2);
  });

  it("a writer killed mid-stream: the others finish, nothing acknowledged is lost, no batch is half there", async () => {
    const victim = run("append", dir, "shared", "1000", "victim", "400");
    await victim.saw((l) => l.startsWith("ack victim-5 "));
    const writers = Array.from({ length: 3 }, (_, i) => run("append", dir, "shared", "20", `w${i}`, "400"));
    await writers[0]!.saw((l) => l.startsWith("ack "));
    victim.proc.kill("SIGKILL");
    await victim.exited;
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0, 0]);
    const inFile = await audit("shared");
    for (const batch of [...acked(victim), ...writers.flatMap(acked)]) expect(inFile.has(batch), batch).toBe(true);
    // At most the victim's one batch in flight is in the file without its acknowledgement.
    expect(inFile.size - acked(victim).length - 60).toBeLessThanOrEqual(1);
    const store = fsStore(dir, { lockStaleMs: 400 });
    const n = await store.length!("shared");
    expect(await store.append("shared", [rec()], { expect: n })).toBe(n + 1);
  });
});
