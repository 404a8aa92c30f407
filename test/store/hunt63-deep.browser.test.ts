// Real Chromium (hunt 63): a record nested deeper than the browser's structured clone reads back. Chromium writes an
// object nested ~2,500 levels deep (in a page; ~1,260 in a worker, whose stack is smaller) and reads it back as null:
// the append resolved, and from then on every read of the conversation failed (store-corrupt, "record 1 is null"),
// its records lost to every tab. Deeper still (~5,000), the write itself threw, as a bare store-io.
import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/errors.js";
import { handles, note, rejection } from "./indexeddb-cases.js";

/** A note whose `tree` is `levels` objects (or arrays) deep, counting the record itself as the first level. */
const deep = (levels: number, arrays = false): object => {
  let tree: unknown = "leaf";
  for (let i = 0; i < levels - 1; i++) tree = arrays ? [tree] : { child: tree };
  return { ...note("deep"), tree: (tree as { child: unknown }).child ?? tree };
};

/** Reads `name`'s conversation "sam" in a dedicated worker, with the raw IndexedDB API: what each record reads as there. */
const readInWorker = async (name: string): Promise<string[]> => {
  const source = `
    const req = indexedDB.open(${JSON.stringify(name)});
    req.onsuccess = () => {
      const get = req.result.transaction("records").objectStore("records").getAll(IDBKeyRange.bound(["sam", 0], ["sam", Infinity]));
      get.onsuccess = () => { postMessage(get.result.map((r) => (r === null || r === undefined ? String(r) : typeof r))); req.result.close(); };
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
  try {
    return await new Promise<string[]>((resolve) => (worker.onmessage = (e: MessageEvent<string[]>) => resolve(e.data)));
  } finally {
    worker.terminate();
  }
};

describe("indexedDBStore: a record nested deeper than the browser reads back", () => {
  const open = handles({ locks: null }).fresh;

  it("is refused (input-invalid) before anything is written, not kept where no read gets it back; the conversation goes on", async () => {
    for (const [levels, arrays] of [
      [2_600, false], // written, read back null in this page
      [1_400, false], // read back here, but null in a worker
      [6_000, false], // the browser's write threw (store-io)
      [3_000, true],
    ] as const) {
      const { name, s } = open();
      await s.append("sam", [note("a")]);
      const e = await rejection(s.append("sam", [note("b"), deep(levels, arrays)]));
      const read = await rejection(s.read("sam"));
      expect(read, `${levels} levels${arrays ? " of arrays" : ""}: the conversation reads`).toBeUndefined();
      expect(isFunctaiError(e, "input-invalid"), `${levels} levels${arrays ? " of arrays" : ""}: ${e === undefined ? "kept" : String(e)}`).toBe(true);
      expect(String(e)).toMatch(/record 2 of the batch/);
      expect(await s.length!("sam")).toBe(1); // all or none: "b" was not written either
      expect(await s.append("sam", [note("c")], { expect: 1 })).toBe(2);
      expect(await readInWorker(name)).toEqual(["object", "object"]);
    }
  });

  it("a record nested as deep as the limit is kept and read back whole, here and in a worker", async () => {
    const { name, s } = open();
    const record = deep(512);
    await s.append("sam", [record]);
    const [read] = await s.read("sam");
    expect(JSON.stringify(read)).toBe(JSON.stringify({ ...record, seq: 1 }));
    expect(await readInWorker(name)).toEqual(["object"]);
  });
});
