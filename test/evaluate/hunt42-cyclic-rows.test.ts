/**
 * Hunt 42: rows holding a cycle (a parsed record whose `parent` points back at it; the inputs are JSON, another
 * column need not be). `compare` checks each row is the same data in both evaluations, item by item, and followed
 * the cycle until the stack ran out: a RangeError from deep inside, for evaluations of copies of the same rows. The
 * same walk scores an output against its expected answer (`exactMatch`), so such a row failed with "Maximum call
 * stack size exceeded". A pair of values already being compared is taken as the same (the rest of the walk decides).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { compare, evaluate, exactMatch, FunctaiError, program } from "../../src/index.js";

type Node = { name: string; next?: Node };
const ring = (names: string[]): Node => {
  const nodes: Node[] = names.map((name) => ({ name }));
  nodes.forEach((n, i) => {
    n.next = nodes[(i + 1) % nodes.length]!;
  });
  return nodes[0]!;
};

const echo = program("echo", { description: "Echo.", input: { q: z.string() }, output: z.string() }, async ({ q }) => q);

describe("data holding a cycle", () => {
  it("compare pairs copies of rows that hold a cycle", async () => {
    const rows = [
      { q: "a", result: "a", graph: ring(["x", "y"]) },
      { q: "b", result: "c", graph: ring(["z"]) },
    ];
    const before = await evaluate(echo, rows);
    const after = await evaluate(echo, structuredClone(rows));
    const [main] = compare(before, after);
    expect(main).toMatchObject({ metric: "exact_match", before: 0.5, after: 0.5, diff: 0, n: 2, same: 2 });
  });

  it("compare refuses rows whose cycles differ, with input-invalid naming the row", async () => {
    const before = await evaluate(echo, [{ q: "a", result: "a", graph: ring(["x", "y"]) }]);
    const after = await evaluate(echo, [{ q: "a", result: "a", graph: ring(["x", "w"]) }]);
    let error: unknown;
    try {
      compare(before, after);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "input-invalid", message: expect.stringContaining("row 1 is not the same") });
  });

  it("exactMatch compares answers that hold a cycle", () => {
    expect(exactMatch({ result: ring(["x", "y"]) }, { result: ring(["x", "y"]) }).exact_match).toBe(1);
    expect(exactMatch({ result: ring(["x", "y"]) }, { result: ring(["x", "y", "x", "y"]) }).exact_match).toBe(1);
    expect(exactMatch({ result: ring(["x", "y"]) }, { result: ring(["x", "z"]) }).exact_match).toBe(0);
    const a: unknown[] = [1];
    a.push(a);
    const b: unknown[] = [1];
    b.push(b);
    expect(exactMatch({ result: a }, { result: b }).exact_match).toBe(1);
  });
});
