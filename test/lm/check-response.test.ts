/**
 * A reply is checked before the engine reads or records it: it must be JSON
 * that can be kept. The check walks plain data instead of making the reply's
 * JSON text, and asks JSON.stringify only when the walk cannot tell; so a
 * reply is refused exactly when JSON.stringify throws on it, whatever it
 * holds (a BigInt, a cycle, a Date, a throwing getter or toJSON, a Map).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FunctaiError } from "../../src/errors.js";
import { checkResponse } from "../../src/lm/check-response.js";
import type { LanguageModel } from "../../src/lm/types.js";

const lm = { provider: "custom", model: "m" } as LanguageModel;
const reply = (extra: unknown) => ({
  text: "",
  toolCalls: [{ id: "1", name: "look", input: { extra } }],
  finishReason: "tool_calls",
  usage: { inputTokens: 1, outputTokens: 1 },
});
/** What JSON.stringify says of `value`: undefined when it writes it, else the message it throws. */
const stringifyError = (value: unknown): string | undefined => {
  try {
    JSON.stringify(value);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
};
/** What checkResponse says: undefined when it takes the reply, else its refusal. */
const refusal = (value: unknown): string | undefined => {
  try {
    checkResponse(lm, value);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("provider-response");
    return (e as Error).message;
  }
};

const cyclic = (): unknown => {
  const o: Record<string, unknown> = { a: 1 };
  o.self = { back: o };
  return o;
};
const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
/** A binary tree of shared nodes: written 2^depth times over by JSON.stringify, each node met that often by a walk. */
const sharedTree = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { l: v, r: v };
  return v;
};

describe("checkResponse: a reply that cannot be kept as JSON", () => {
  const cases: [string, () => unknown, boolean][] = [
    ["plain data", () => ({ s: "é\ud800\"\\", n: [1, -0, NaN, Infinity], b: true, z: null, u: undefined, f: () => 1 }), true],
    ["a symbol, left out as JSON leaves it", () => ({ s: Symbol("x"), list: [Symbol("y")] }), true],
    ["an object without a prototype", () => Object.assign(Object.create(null), { a: 1 }), true],
    ["a Date (its toJSON)", () => new Date(0), true],
    ["an invalid Date (toJSON gives null)", () => new Date(Number.NaN), true],
    ["a Map (written as {})", () => new Map([[1, 2]]), true],
    ["a class instance", () => new (class Point { x = 1 })(), true],
    ["a class instance holding a BigInt", () => new (class Point { x = 1n })(), false],
    ["a BigInt", () => 1n, false],
    ["a boxed BigInt (no keys of its own)", () => ({ boxed: Object(1n) }), false],
    ["a boxed number", () => [Object(1)], true],
    ["a BigInt deep in an array", () => nested(10, [1, 2n]), false],
    ["a cycle", cyclic, false],
    ["a toJSON that throws", () => ({ toJSON: () => { throw new Error("no JSON here"); } }), false],
    ["a toJSON that gives a BigInt", () => ({ toJSON: () => 3n }), false],
    ["a getter that throws", () => Object.defineProperty({}, "g", { enumerable: true, get: () => { throw new Error("getter broke"); } }), false],
    ["nesting deeper than the walk goes, plain", () => nested(200, "leaf"), true],
    ["nesting deeper than the walk goes, with a BigInt at the bottom", () => nested(200, 5n), false],
    ["a shared subtree met more times than the walk counts", () => sharedTree(18), true],
    ["an array with a toJSON of its own", () => Object.assign([1], { toJSON: () => 1n }), false],
  ];
  for (const [name, make, keeps] of cases) {
    it(`${name}: ${keeps ? "taken" : "refused"}, as JSON.stringify says`, () => {
      const value = reply(make());
      const thrown = stringifyError(value);
      expect(thrown === undefined).toBe(keeps); // (the case is what its name says)
      const said = refusal(value);
      if (thrown === undefined) expect(said).toBeUndefined();
      else expect(said).toBe(`custom model m gave back a reply that cannot be used: it is not JSON (${thrown}).`);
    });
  }

  it("any value: refused exactly when JSON.stringify throws on the reply, with its message", () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.anything(), fc.bigInt(), fc.date(), fc.constant(undefined), fc.constant(Symbol("s"))),
      node: fc.oneof(
        { depthSize: "small" },
        tie("leaf"),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 5 }), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const r = reply(v);
        const thrown = stringifyError(r);
        const said = refusal(r);
        if (thrown === undefined) expect(said).toBeUndefined();
        else expect(said).toBe(`custom model m gave back a reply that cannot be used: it is not JSON (${thrown}).`);
      }),
      { numRuns: 2000 },
    );
  });
});
