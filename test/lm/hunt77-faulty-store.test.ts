/**
 * hunt 77: `faultyStore` (functai/testing) wrapped a store but kept only
 * append, read, wait, list, length and close: the optional `scan` (the
 * node-fs and Postgres stores stream a long conversation with it) and
 * `lengths` (what `serve`'s waiting list polls) were dropped. A test that
 * injected faults into an fs store silently ran the `read` path instead of
 * the store's own `scan`, and a crashed store still answered through them.
 * Every method the wrapped store has is passed on, refusing once crashed as
 * the others do.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/store.js";
import { ai } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { faultyStore, memoryStore, scripted } from "../../src/testing/index.js";
import { InjectedFault } from "../../src/testing/faulty-store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt77-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const echo = ai("echo", { description: "Say it back.", input: { text: z.string() }, output: z.string() });

describe("faultyStore passes on every method of the store it wraps", () => {
  it("an fs store's scan is the one a conversation walks its log with, through the wrapper", async () => {
    const fs = fsStore(dir);
    let scans = 0;
    const scan = fs.scan!.bind(fs);
    const counted: Store = { ...fs, scan: (c, after, visit) => (scans++, scan(c, after, visit)) };
    const store = faultyStore(counted);
    expect(typeof store.scan).toBe("function");
    const lm = scripted(["<result>\nhi\n</result>"]);
    await expect(echo.conversation("sam", { store, lm }).send("hi")).resolves.toBe("hi");
    const turns = await echo.conversation("sam", { store, lm }).turns();
    expect(turns.at(-1)!.state).toBe("done");
    expect(scans).toBeGreaterThan(0);
    const seen: number[] = [];
    const length = await store.scan!("sam", 0, (r) => seen.push(r.seq));
    expect(seen.length).toBe(length);
    expect(length).toBeGreaterThan(0);
    await fs.close?.();
  });

  it("lengths is passed on, and scan and lengths refuse once the store crashed", async () => {
    const m = memoryStore();
    const inner: Store = { ...m, lengths: async () => new Map([["sam", await m.length!("sam")]]) };
    const fs = fsStore(dir);
    const store = faultyStore(inner, { failOn: { 2: "before-write" }, crash: true });
    const fstore = faultyStore(fs, { failOn: { 2: "before-write" }, crash: true });
    for (const s of [store, fstore]) {
      await s.append("sam", [{ functai_conversation: 1, kind: "note", at: "2026-12-06T00:00:00.000Z" }]);
      await expect(s.append("sam", [{ functai_conversation: 1, kind: "note", at: "2026-12-06T00:00:01.000Z" }])).rejects.toBeInstanceOf(
        InjectedFault,
      );
    }
    expect(typeof store.lengths).toBe("function");
    await expect(store.lengths!()).rejects.toBeInstanceOf(InjectedFault);
    expect(typeof fstore.scan).toBe("function");
    await expect(fstore.scan!("sam", 0, () => {})).rejects.toBeInstanceOf(InjectedFault);
    await expect(faultyStore(inner).lengths!()).resolves.toEqual(new Map([["sam", 1]]));
    await fs.close?.();
  });
});
