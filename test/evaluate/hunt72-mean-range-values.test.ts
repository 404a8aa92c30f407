/**
 * Hunt 72: `meanRange` refuses a value that is not a finite number (`input-invalid`, naming it), but named it with
 * `JSON.stringify`, which throws on a BigInt: an integer column read from DuckDB or SQLite with safe integers (`1n`)
 * was a bare TypeError ("Do not know how to serialize a BigInt") instead of the coded refusal, and a value JSON has
 * no text for (a function, a symbol) was named "undefined".
 */
import { describe, expect, it } from "vitest";
import { meanRange } from "../../src/index.js";

describe("meanRange names a value it refuses, whatever it is", () => {
  it("a BigInt: input-invalid naming its place, not a TypeError", () => {
    expect(() => meanRange([1, 0, 1n as never])).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("value 3") }),
    );
  });

  it("a symbol, a function: input-invalid saying what it is", () => {
    expect(() => meanRange([1, Symbol("x") as never])).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/value 2 is .*symbol/i) }),
    );
    expect(() => meanRange([(() => 1) as never, 1])).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/value 1 is .*function/i) }),
    );
  });
});
