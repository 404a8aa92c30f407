/**
 * What fsStore is given: a folder that is not a non-empty string, or an
 * option that is not a number of the right kind, is refused at once
 * (input-invalid), never turned into another folder, a lock wait that never
 * ends (NaN), a busy poll, or a TypeError at the first read.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore, type FsStoreOptions } from "../../adapters/node-fs/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { rec } from "./contract.js";
import { errorOf as thrown } from "../fixtures/refused.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-options-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});


describe("fsStore: its folder and options", () => {
  it("a folder that is not a non-empty string is refused (input-invalid), not the working directory or '[object Object]'", () => {
    for (const bad of ["", 42, {}, null, undefined, ["chats"]]) {
      const e = thrown(() => fsStore(bad as unknown as string));
      expect(isFunctaiError(e, "input-invalid")).toBe(true);
      expect((e as Error).message).toMatch(/folder/);
    }
  });

  it("options that are not an object (null, a string, a list) are refused (input-invalid), not a TypeError", () => {
    for (const bad of [null, "fast", ["lockTimeoutMs"], 5]) {
      const e = thrown(() => fsStore(dir, bad as unknown as FsStoreOptions));
      expect(isFunctaiError(e, "input-invalid"), String(bad)).toBe(true);
      expect((e as Error).message).toMatch(/options/);
    }
  });

  it("an option that is not a number of the right kind is refused (input-invalid), naming it", () => {
    const bad: [keyof FsStoreOptions, unknown][] = [
      ["lockTimeoutMs", Number.NaN], ["lockTimeoutMs", -1], ["lockTimeoutMs", "300"],
      ["lockStaleMs", Number.NaN], ["lockStaleMs", -5],
      ["pollMs", 0], ["pollMs", Number.NaN], ["pollMs", -20], ["pollMs", Number.POSITIVE_INFINITY],
      ["openFiles", Number.NaN], ["openFiles", 0], ["openFiles", "8"],
      ["readCacheBytes", Number.NaN], ["readCacheBytes", -1],
      ["scanChunkBytes", Number.NaN], ["scanChunkBytes", 0], ["scanChunkBytes", Number.POSITIVE_INFINITY],
      ["onFlush", "yes"],
    ];
    for (const [option, value] of bad) {
      const e = thrown(() => fsStore(dir, { [option]: value } as FsStoreOptions));
      expect(isFunctaiError(e, "input-invalid"), `${option}: ${String(value)}`).toBe(true);
      expect((e as Error).message).toContain(option);
    }
  });

  it("the edges that mean something are kept: a lock wait of 0 (try once) or for ever, no read cache, an open file", async () => {
    const store = fsStore(dir, { lockTimeoutMs: 0, lockStaleMs: 0, readCacheBytes: 0, openFiles: 1, scanChunkBytes: 1, pollMs: 0.5 });
    expect(await store.append("sam", [rec("a")])).toBe(1);
    expect(await store.read("sam")).toHaveLength(1);
    await store.close!();
    const forever = fsStore(dir, { lockTimeoutMs: Number.POSITIVE_INFINITY, readCacheBytes: Number.POSITIVE_INFINITY });
    expect(await forever.append("sam", [rec("b")], { expect: 1 })).toBe(2);
    await forever.close!();
    expect((await readdir(join(dir, "conversations"))).filter((n) => n.endsWith(".jsonl"))).toEqual(["sam.jsonl"]);
  });
});
