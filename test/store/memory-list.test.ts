/**
 * The memory store lists conversations in the order every other store does
 * (node-fs and IndexedDB: by id, in code-unit order), not in the order they
 * were first written: a program tested on memory lists the same on disk.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { rec } from "./contract.js";

describe("memory store: list", () => {
  it("names conversations by id, in code-unit order", async () => {
    const store = memoryStore();
    for (const id of ["b", "a", "B", "a.1", "10", "9"]) await store.append(id, [rec()]);
    await store.append("empty", []); // nothing kept: not a conversation
    expect(await store.list!()).toEqual(["10", "9", "B", "a", "a.1", "b"]);
  });
});
