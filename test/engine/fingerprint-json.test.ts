/**
 * A fingerprint hashes each message as its JSON text would read, without
 * making the text. Journals are keyed by the digest of that text, so for any
 * value the key must be the one `digest(state + JSON.stringify(value))`
 * gives: escapes, key order, omitted members and numbers included. What it
 * does not write itself (a Date's toJSON, a Map, a cycle) goes through
 * JSON.stringify as before.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digest } from "../../src/lm/digest.js";
import { Fingerprint } from "../../src/lm/fingerprint.js";

/** The key as every earlier version made it: the JSON text, hashed after the state. */
const byText = (seed: string, parts: unknown[]): string => {
  let state = digest(seed);
  for (const part of parts) state = digest(state + JSON.stringify(part));
  return state;
};
const streamed = (seed: string, parts: unknown[]): string => {
  const f = new Fingerprint(seed);
  for (const part of parts) f.add(part);
  return f.key();
};

const tricky = fc.constantFrom(
  "",
  '"',
  "\\",
  "\b\f\n\r\t",
  "\u0000\u0001\u001f\u007f",
  "\u2028\u2029",
  "\ud800",
  "\udc00",
  "\udc00\ud800",
  "a\ud83d\ude00b",
  "\ud83d",
  "é😀",
);
const text = fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), tricky);
const leaf = fc.oneof(
  text,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(-0),
  fc.constant(() => 1),
  fc.constant(Symbol("s")),
  fc.date({ noInvalidDate: true }),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom("0", "1", "10", "-1", "01", "__proto__")), tie("value"), { maxKeys: 4 }),
  ),
}));

describe("Fingerprint.add hashes a value as its JSON text", () => {
  it("gives the key of the JSON text for any plain data (escapes, key order, omitted members, numbers)", () => {
    fc.assert(
      fc.property(text, fc.array(fc.oneof(fc.array(value, { maxLength: 3 }), fc.dictionary(text, value, { maxKeys: 5 })), { maxLength: 4 }), (seed, parts) => {
        expect(streamed(seed, parts)).toBe(byText(seed, parts));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the key of the JSON text for messages as the tool loop makes them", () => {
    const messages = [
      { role: "system", content: "You answer customers.\nBe brief." },
      { role: "user", content: 'Where is "A-1042"? \\ é😀' },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "lookup", input: { id: "A-1042", n: 3, deep: [1, null, { x: true }] } }] },
      { role: "tool", toolCallId: "c1", name: "lookup", content: '{"status":"shipped","eta":"2026-12-02"}' },
      { role: "tool", toolCallId: "c2", name: "lookup", content: "Error: boom", isError: true },
      { role: "assistant", content: "ok", toolCalls: undefined },
    ];
    expect(streamed("seed", messages)).toBe(byText("seed", messages));
  });

  it("takes the JSON text for what it does not write itself: toJSON, Map, boxed values, sparse arrays, deep nesting", () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is written as null
    const sparse = [1, , 3];
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 200; i++) deep = { next: [deep] };
    const nullProto = Object.assign(Object.create(null), { b: 1, a: [2] });
    const withGetter = Object.defineProperty({ shown: 1 }, "computed", { get: () => "got", enumerable: true });
    const hidden = Object.defineProperty({ shown: 1 }, "hidden", { value: 2, enumerable: false });
    const inherited = Object.assign(Object.create({ inheritedKey: 1 }), { own: 2 });
    const parts = [
      { at: new Date(0), custom: { toJSON: () => ["custom"] } },
      { map: new Map([["k", 1]]), set: new Set([1]), boxed: [new String("s"), new Number(1), new Boolean(false)] },
      { sparse, nonFinite: [Number.NaN, Number.POSITIVE_INFINITY, -Number.POSITIVE_INFINITY, -0, 1e21, 1e-7, 0.1 + 0.2] },
      { deep },
      { nullProto, withGetter, hidden, inherited },
      [undefined, () => 1, Symbol("s")],
      { arrayWithToJSON: Object.assign([1, 2], { toJSON: () => "replaced" }) },
    ];
    for (const part of parts) expect(streamed("s", [part])).toBe(byText("s", [part]));
  });

  it("gives the same key when reading a value runs code that makes a digest of its own (a getter)", () => {
    const inner: string[] = [];
    const part = {
      before: "text before",
      get computed() {
        inner.push(new Fingerprint("inner").add({ nested: ["a", 1] }).key());
        return "computed";
      },
      after: [1, 2, 3],
    };
    expect(streamed("s", [part])).toBe(byText("s", [part]));
    expect(inner.length).toBeGreaterThan(0);
    for (const key of inner) expect(key).toBe(byText("inner", [{ nested: ["a", 1] }]));
  });

  it("fails as JSON.stringify does on what has no JSON text (a cycle, a bigint)", () => {
    const cycle: { a: number; self?: unknown } = { a: 1 };
    cycle.self = cycle;
    expect(() => new Fingerprint("s").add({ cycle })).toThrow(TypeError);
    expect(() => new Fingerprint("s").add({ n: 1n })).toThrow(TypeError);
  });

  it("keys the same as before for a value that is not an object (hashed as its JSON text)", () => {
    for (const part of ["text", 1, true, null]) expect(streamed("s", [part])).toBe(byText("s", [part]));
  });
});
