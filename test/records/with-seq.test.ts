import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withSeq } from "../../src/records/with-seq.js";

/** Own keys in order, each with its value and whether it is enumerable, and the prototype: what two copies must share. */
const anatomy = (o: object) => ({
  proto: Object.getPrototypeOf(o),
  keys: Reflect.ownKeys(o),
  props: Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]),
});

describe("withSeq", () => {
  it("makes what { ...record, seq } makes, for any JSON object (a seq already there included)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.boolean(), (record, seq, withOld) => {
        const source = withOld ? { ...record, seq: -1 } : record;
        const copy = withSeq(source, seq);
        expect(anatomy(copy)).toEqual(anatomy({ ...source, seq }));
        expect(copy).not.toBe(source);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps an own __proto__ key as a key (as JSON.parse makes it), never as the copy's prototype", () => {
    const parsed = JSON.parse('{"kind":"head","__proto__":{"polluted":true},"turn":"t1"}') as object;
    const copy = withSeq(parsed, 3);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(copy)).toEqual(["kind", "__proto__", "turn", "seq"]);
    expect(anatomy(copy)).toEqual(anatomy({ ...parsed, seq: 3 }));
  });

  it("copies a frozen record into one it can own, and reads getters and symbols as a spread does", () => {
    const frozen = Object.freeze({ kind: "head", turn: "t1" });
    expect(Object.isFrozen(withSeq(frozen, 1))).toBe(false);
    const tag = Symbol("tag");
    let reads = 0;
    const odd = {
      get kind() {
        reads++;
        return "head";
      },
      [tag]: 1,
    };
    expect(anatomy(withSeq(odd, 2))).toEqual(anatomy({ ...odd, seq: 2 }));
    expect(reads).toBe(2);
  });
});
