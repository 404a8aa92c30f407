/**
 * Hunt 27: a program's inputs that JSON keeps as something else. A
 * conversation's turn keeps its inputs as JSON, and a resumed body is handed
 * them read back from it. `resumable` (src/conversation/conversation.ts)
 * refuses inputs the schema cannot read back (a `z.date()`: its JSON is a
 * string), but not inputs it reads back as other values: through `z.any()`
 * (or `z.unknown()`, a record of them, a loose object's other keys) NaN and
 * Infinity come back as null, -0 as 0, an array's undefined as null, a Date
 * as a string. The first run's body saw one value, the resumed body sees
 * another.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { memoryStore, program, resetConfiguration, Waiting } from "../../src/index.js";
import { desk } from "./hunt14-desk.js";

beforeEach(() => resetConfiguration());

/** A program that notes what its body was given (as text that tells NaN, -0, undefined and a Date apart), then waits on a refund. */
function noting() {
  const seen: string[] = [];
  const { fn, lm, REFUNDS } = desk();
  const p = program("p", { description: "Notes its input, then refunds.", input: { x: z.any() } }, async ({ x }, ctx) => {
    seen.push(told(x));
    return fn("refund A-1", { ctx, lm });
  });
  return { p, seen, REFUNDS };
}

/** A value as text that tells apart what JSON does not. */
function told(x: unknown): string {
  if (Object.is(x, -0)) return "-0";
  if (typeof x === "number") return String(x);
  if (x instanceof Date) return `Date(${x.toISOString()})`;
  if (Array.isArray(x)) return `[${x.map(told).join(",")}]`;
  return x === undefined ? "undefined" : JSON.stringify(x);
}

describe("a program's input JSON keeps as another value, in a conversation", () => {
  // Fixed in src/conversation/conversation.ts `resumable`: the first run's body is given the inputs as a resume
  // gives them (keptInputs, read back from their JSON). (A plain call is never resumed, and an AI function only lays
  // its inputs out as JSON: both were consistent.)
  for (const [name, x] of [
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-0", -0],
    ["an array with undefined", [1, undefined]],
    ["a Date", new Date(0)],
  ] as const)
    it(`${name}: refused before anything is written, or given to the resumed body as the first run had it`, async () => {
      const { p, seen, REFUNDS } = noting();
      const store = memoryStore();
      const sent = p.conversation("c", { store, approve: "changes" }).send({ x } as never);
      const first = await sent.then(
        () => "done",
        (e: unknown) => (e instanceof Waiting ? "waiting" : e),
      );
      if (first !== "waiting") {
        // refused: with input-invalid, before the body ran or anything was written
        expect(first).toMatchObject({ code: "input-invalid" });
        expect(seen).toEqual([]);
        expect(await store.read("c")).toEqual([]);
        return;
      }
      const [turn] = await p.conversation("c", { store }).turns();
      expect(await turn!.approve({ by: "sam" })).toBe("Refunded.");
      expect(REFUNDS).toEqual(["A-1"]);
      expect(seen).toHaveLength(2);
      expect(seen[1]).toBe(seen[0]); // the resumed body is given what the first run was
    });
});
