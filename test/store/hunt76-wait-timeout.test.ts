/**
 * A `wait`'s `timeoutMs` is a number of milliseconds. Not type-checked, a
 * text such as "60000" (read from the environment or a config file) was
 * coerced as each store's arithmetic happened to: the memory store waited
 * 60 s, the fs store answered false at once (`performance.now() + "60000"`
 * is a text, which parsed back as about now), so a caller that polls in a
 * loop spun; `undefined`, an object or a BigInt looked once or threw a
 * TypeError. Every store refuses such a value (`input-invalid`, one check in
 * src/store/checks.ts); the documented values (NaN and 0 or less: look once;
 * `Infinity`: no timeout; any finite number) keep working.
 */
import "fake-indexeddb/auto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deleteDB } from "idb";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { FunctaiError, memoryStore } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { rec } from "./contract.js";
import { freshName } from "./indexeddb-cases.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const stores: [string, () => Promise<{ store: Store; cleanup?: () => Promise<void> }>][] = [
  ["memory", async () => ({ store: memoryStore() })],
  [
    "node-fs",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "hunt76-"));
      dirs.push(dir);
      return { store: fsStore(dir, { pollMs: 20 }) };
    },
  ],
  [
    "indexeddb",
    async () => {
      const name = freshName();
      return { store: indexedDBStore(name), cleanup: () => deleteDB(name) };
    },
  ],
];

const wrong: [string, unknown][] = [
  ['"60000"', "60000"],
  ['""', ""],
  ["undefined", undefined],
  ["null", null],
  ["an object", { ms: 100 }],
  ["a BigInt", 100n],
  ["true", true],
];

describe.each(stores)("%s store: wait's timeoutMs", (_, make) => {
  it.each(wrong)("refuses %s with input-invalid, before waiting", async (__, timeout) => {
    const { store, cleanup } = await make();
    try {
      await store.append("c", [rec()]);
      const started = performance.now();
      const got = await store.wait!("c", 1, timeout as number).then(
        (v) => ({ value: v }),
        (e: unknown) => ({ error: e }),
      );
      expect(got).toMatchObject({ error: expect.any(FunctaiError) });
      const error = (got as { error: FunctaiError }).error;
      expect(error.code).toBe("input-invalid");
      expect(error.message).toMatch(/timeoutMs/);
      // refused at once, not after a wait (generous: 2 CPUs shared by several test runs)
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await store.close?.();
      await cleanup?.();
    }
  });

  it("keeps the documented values: NaN, 0 and negatives look once, a number waits, Infinity waits for an append", async () => {
    const { store, cleanup } = await make();
    try {
      await store.append("c", [rec()]);
      expect(await store.wait!("c", 1, Number.NaN)).toBe(false);
      expect(await store.wait!("c", 1, 0)).toBe(false);
      expect(await store.wait!("c", 1, -5)).toBe(false);
      expect(await store.wait!("c", 0, Number.NaN)).toBe(true);
      expect(await store.wait!("c", 1, 30)).toBe(false);
      const forever = store.wait!("c", 1, Number.POSITIVE_INFINITY);
      await store.append("c", [rec()]);
      expect(await forever).toBe(true);
    } finally {
      await store.close?.();
      await cleanup?.();
    }
  });
});
