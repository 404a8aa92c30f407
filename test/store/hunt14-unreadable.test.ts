/**
 * The fs store and a record it cannot read that carries a `seq` of its own (a
 * record read from another store and copied here: the store gives seq,
 * whatever the caller put there). DESIGN, exactly-once rules: "Every error a
 * user can see is a `FunctaiError` with a code"; the memory store refuses
 * such a record as `input-invalid` "as the other stores do"
 * (memory-unreadable.test.ts). Before, the fs store let the getter's own
 * Error out of `append` when the record had an own `seq`.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { codeOf } from "../fixtures/refused.js";

const rec = (seq?: number): Record<string, unknown> => ({
  functai_conversation: 1,
  kind: "note",
  at: "2026-12-05T00:00:00.000Z",
  ...(seq === undefined ? {} : { seq }),
});
const throwing = (record: Record<string, unknown>, key: string): object =>
  Object.defineProperty(record, key, {
    enumerable: true,
    get: () => {
      throw new Error(`${key} cannot be read`);
    },
  });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt14-unreadable-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("fsStore: a record it cannot read, carrying a seq", () => {
  const cases: [string, () => object][] = [
    ["a getter that throws beside its seq", () => throwing(rec(7), "boom")],
    ["a seq getter that throws", () => throwing(rec(), "seq")],
    [
      "a Proxy that refuses its keys",
      () =>
        new Proxy(rec(7), {
          ownKeys: () => {
            throw new Error("no keys");
          },
        }),
    ],
    [
      "a Proxy that refuses to say whether it has a seq",
      () =>
        new Proxy(rec(7), {
          getOwnPropertyDescriptor: () => {
            throw new Error("no descriptor");
          },
        }),
    ],
  ];
  for (const [name, make] of cases) {
    it(`${name}: input-invalid, and nothing of its batch is written`, async () => {
      const store = fsStore(dir);
      expect(await codeOf(() => store.append("c", [rec(1), make()]))).toBe("input-invalid");
      expect(await store.read("c")).toEqual([]);
      expect(await readdir(join(dir, "conversations")).catch(() => [])).not.toContain("c.jsonl");
      expect(await store.append("c", [rec(5)], { expect: 0 })).toBe(1);
      expect((await store.read("c")).map((r) => r.seq)).toEqual([1]);
    });
  }

  it("a record with a seq that can be read is kept, with the store's seq", async () => {
    const store = fsStore(dir);
    expect(await store.append("c", [rec(40), rec(41)])).toBe(2);
    expect((await fsStore(dir).read("c")).map((r) => r.seq)).toEqual([1, 2]);
  });
});
