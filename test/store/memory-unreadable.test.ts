/**
 * The memory store refuses a record it cannot read (a getter that throws, a
 * Proxy that refuses) with a FunctaiError (`input-invalid`), as the other
 * stores do, and keeps nothing of its batch: never a bare Error from inside
 * an append.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { rec } from "./contract.js";
import { codeOf } from "../fixtures/refused.js";

describe("memory store: a record it cannot read", () => {
  it("is input-invalid, and nothing of its batch is kept", async () => {
    const bad: object[] = [
      Object.defineProperty(rec(), "boom", {
        enumerable: true,
        get: () => {
          throw new Error("boom");
        },
      }),
      new Proxy(rec(), {
        ownKeys: () => {
          throw new Error("no keys");
        },
      }),
    ];
    const store = memoryStore();
    for (const record of bad) expect(await codeOf(() => store.append("c", [rec(), record]))).toBe("input-invalid");
    expect(await store.read("c")).toEqual([]);
    expect(await store.append("c", [rec()], { expect: 0 })).toBe(1);
  });
});
