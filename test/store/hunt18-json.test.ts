/**
 * The memory store keeps what the other stores keep: a record comes back
 * from read() as its JSON round trip gives it (a Date as its ISO text, an
 * undefined or a function left out, NaN as null, a symbol key dropped), or
 * is refused as they refuse it (`input-invalid`: a BigInt, a cycle, a
 * `toJSON` that gives no object). The caller's objects are not the
 * journal's: changing them after the append changes nothing kept.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { storeOn } from "../../adapters/postgres/store.js";
import { freshSchema, pgliteDb } from "../postgres/pglite-db.js";
import { codeOf, rec } from "./contract.js";
import { localStores, type StoreMaker } from "./fixtures/local-stores.js";

/** The keys of the odd record, as they read back. */
type Odd = { when: unknown; nan: unknown; negZero: unknown; map: unknown };
const roundTrip = (r: object): unknown => JSON.parse(JSON.stringify(r));
const strip = (r: object): Record<string, unknown> => {
  const { seq: _seq, ...rest } = r as Record<string, unknown>;
  return rest;
};

const local = localStores("functai-hunt18-");
afterEach(local.cleanUp);

let pg: PGlite | undefined;
afterAll(async () => {
  await pg?.close();
});

// (the file and Postgres stores beside it: what the memory store must agree with)
const stores: StoreMaker[] = [
  ...local.stores,
  [
    "postgres store (pglite)",
    async () => {
      pg ??= new PGlite();
      return local.track(storeOn(pgliteDb(pg), { schema: freshSchema() }));
    },
  ],
];

describe.each(stores)("%s: records as JSON", (_name, make) => {
  it("refuses what a JSON store refuses (input-invalid), keeping nothing of the batch", async () => {
    const store = await make();
    const cycle: { self?: unknown } = rec();
    cycle.self = cycle;
    const bad: [string, object][] = [
      ["a BigInt", rec("x", { n: 10n })],
      ["a nested BigInt", rec("x", { deep: { list: [1n] } })],
      ["a cycle", cycle],
      ["a toJSON giving a string", { ...rec(), toJSON: () => "text" }],
      ["a toJSON giving nothing", { ...rec(), toJSON: () => undefined }],
      [
        "a toJSON that throws",
        {
          ...rec(),
          toJSON: () => {
            throw new Error("no");
          },
        },
      ],
    ];
    for (const [what, record] of bad) {
      expect(await codeOf(() => store.append("c", [rec(), record])), what).toBe("input-invalid");
    }
    expect(await store.read("c")).toEqual([]);
    expect(await store.append("c", [rec()], { expect: 0 })).toBe(1);
  });

  it("gives back what a JSON round trip gives", async () => {
    const store = await make();
    const at = new Date("2026-12-05T03:00:00.000Z");
    const sym = Symbol("host");
    const odd = {
      ...rec("odd"),
      when: at,
      gone: undefined,
      fn: () => 1,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      negZero: -0,
      map: new Map([["a", 1]]),
      set: new Set([1]),
      list: [undefined, () => 2, Number.NaN],
      nested: { when: at, gone: undefined },
      [sym]: "kept by Object.assign, never by JSON",
    };
    await store.append("c", [odd]);
    const [got] = await store.read("c");
    expect(got!.seq).toBe(1);
    // byte for byte what a JSON store reads back (toEqual would let an undefined key or a Date pass)
    expect(JSON.stringify(strip(got!))).toBe(JSON.stringify(roundTrip(odd)));
    expect(Object.hasOwn(got!, "gone")).toBe(false);
    expect(Object.hasOwn(got!, "fn")).toBe(false);
    expect(typeof (got as unknown as Odd).when).toBe("string");
    expect((got as unknown as Odd).nan).toBeNull();
    expect(Object.is((got as unknown as Odd).negZero, 0)).toBe(true);
    expect(Object.getOwnPropertySymbols(got!)).toEqual([]);
    expect(Object.getPrototypeOf((got as unknown as Odd).map)).toBe(Object.prototype);
  });

  it("an object with a toJSON giving an object is kept as that object", async () => {
    const store = await make();
    class Note {
      secret = "not written";
      toJSON(): object {
        return { functai_conversation: 1, kind: "note", at: "2026-12-05T03:00:00.000Z", text: "hi" };
      }
    }
    await store.append("c", [new Note()]);
    const [got] = await store.read("c");
    expect(got).toEqual({ functai_conversation: 1, kind: "note", at: "2026-12-05T03:00:00.000Z", text: "hi", seq: 1 });
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
  });

  it("a nested object the caller changes after the append does not change the journal", async () => {
    const store = await make();
    const inputs = { message: "Refund A-1042", items: ["A-1042"] };
    await store.append("c", [rec("turn", { inputs })]);
    inputs.message = "edited later";
    inputs.items.push("B-2210");
    const [got] = await store.read("c");
    expect((got as unknown as { inputs: unknown }).inputs).toEqual({ message: "Refund A-1042", items: ["A-1042"] });
  });
});
