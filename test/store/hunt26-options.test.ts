/**
 * An append's options as JavaScript callers pass them: `null` (an options
 * object left out by `maybe ?? null`) means no options in the memory and
 * file stores; the IndexedDB store read `opts.expect` of it and rejected
 * with a bare TypeError, not a FunctaiError with a code.
 */
import "fake-indexeddb/auto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { fsStore } from "../../adapters/node-fs/index.js";
import { memoryStore } from "../../src/store/memory.js";
import type { Store } from "../../src/store/types.js";
import { rec } from "./contract.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

const stores: [string, () => Promise<Store>][] = [
  ["memory store", async () => memoryStore()],
  [
    "fs store",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "functai-hunt26-opts-"));
      const store = fsStore(dir);
      cleanups.push(
        () => store.close!(),
        () => rm(dir, { recursive: true, force: true }),
      );
      return store;
    },
  ],
  [
    "indexedDB store (fake-indexeddb)",
    async () => {
      const name = `functai-hunt26-${crypto.randomUUID()}`;
      const store = indexedDBStore(name, { locks: null });
      cleanups.push(
        () => store.close!(),
        () => deleteDB(name),
      );
      return store;
    },
  ],
];

describe.each(stores)("%s: append's options", (_name, make) => {
  it("null is no options: the batch is appended, durable, without a length check", async () => {
    const store = await make();
    const none = null as unknown as undefined;
    expect(await store.append("c", [rec()], none)).toBe(1);
    expect(await store.append("c", [rec(), rec()], none)).toBe(3);
    expect(await store.append("c", [], none)).toBe(3);
    expect((await store.read("c")).map((r) => r.seq)).toEqual([1, 2, 3]);
  });
});

describe("fs store: scan's visit", () => {
  it("a visit that is not a function is refused (input-invalid), also where there is nothing to visit, not a bare TypeError", async () => {
    const store = await stores[1]![1]();
    await store.append("c", [rec()]);
    for (const visit of [null, undefined, "f", {}]) {
      for (const conversation of ["c", "nothing-here"]) {
        const e = await store.scan!(conversation, 0, visit as unknown as () => void).then(
          () => "resolved",
          (x: unknown) => x,
        );
        expect(isFunctaiError(e, "input-invalid"), `${String(visit)} on ${conversation}: ${String(e)}`).toBe(true);
      }
    }
  });
});
