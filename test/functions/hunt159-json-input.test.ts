/**
 * Hunt 159: what an AI function's input given through `z.any()` or `z.unknown()` reaches the model as. Its inputs
 * are laid out as JSON for the model to read, so NaN, Infinity or an invalid Date, which JSON writes as null, reached
 * the model as null ("the balance is null", a different fact) and nobody was told. Such an input is now refused with
 * input-invalid before any model call, naming where it is, as the inputs JSON cannot keep are. What JSON writes
 * as meant (a Date as its ISO text, an object by its own toJSON) reaches the model so; a Map, a Set or a BigInt is
 * refused (guards).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const answered = "<result>\nok\n</result>";
const quote = () => ai("quote", { description: "Quote.", input: { order: z.string(), extras: z.any(), note: z.unknown().optional() } });

/** What calling `quote` with `input` gave (its refusal, or what the model was shown), and how many requests were made. */
async function called(input: Record<string, unknown>): Promise<{ error?: FunctaiError; shown?: string; requests: number }> {
  const lm = scripted([answered]);
  try {
    await quote()({ order: "A-1042", ...input } as never, { lm });
  } catch (e) {
    return { error: e as FunctaiError, requests: lm.requests.length };
  }
  return { shown: lm.requests[0]!.messages.at(-1)!.content, requests: lm.requests.length };
}

describe("hunt 159: an AI function's input JSON writes as null", () => {
  // Failed before the fix: each call was made, and the model was shown `null` where the caller gave the number.
  for (const [name, input, where] of [
    ["NaN as the input", { extras: Number.NaN }, "extras is NaN"],
    ["Infinity inside an object", { extras: { total: Number.POSITIVE_INFINITY } }, "extras.total is Infinity"],
    ["-Infinity in an array, through z.unknown()", { extras: 1, note: [1, Number.NEGATIVE_INFINITY] }, "note[1] is -Infinity"],
    ["a boxed NaN", { extras: { n: Object(Number.NaN) } }, "extras.n is NaN"],
    ["an invalid Date", { extras: { at: new Date("not a date") } }, "extras.at is an invalid Date"],
  ] as const)
    it(`${name}: input-invalid naming where, nothing sent`, async () => {
      const { error, requests } = await called(input);
      expect(error).toBeInstanceOf(FunctaiError);
      expect(error).toMatchObject({
        code: "input-invalid",
        message: `quote: its input ${where}, which JSON writes as null: the model would read null. Nothing was sent to the model.`,
      });
      expect(requests).toBe(0);
    });

  it("guard: a program's body is still handed NaN as given (its inputs are not laid out for a model)", async () => {
    const seen: unknown[] = [];
    const p = program("p", { description: "Notes.", input: { x: z.any() } }, async ({ x }) => {
      seen.push(x);
      return "ok";
    });
    expect(await p({ x: Number.NaN })).toBe("ok");
    expect(seen).toEqual([Number.NaN]);
  });
});

describe("hunt 159: other values JSON writes otherwise, through z.any() (guards)", () => {
  it("a Date reaches the model as its ISO text, an object with a toJSON as what that gives", async () => {
    class Money {
      constructor(
        readonly cents: number,
        readonly currency: string,
      ) {}
      toJSON(): string {
        return `${(this.cents / 100).toFixed(2)} ${this.currency}`;
      }
    }
    const { shown, error } = await called({ extras: { at: new Date(0), price: new Money(1250, "EUR") } });
    expect(error).toBeUndefined();
    expect(shown).toContain('{"at":"1970-01-01T00:00:00.000Z","price":"12.50 EUR"}');
  });

  for (const [name, extras, why] of [
    ["a Map", new Map([["k", 1]]), "a Map is written as {}"],
    ["a Set", new Set([1]), "a Set is written as {}"],
    ["a BigInt", { n: 10n }, "Do not know how to serialize a BigInt"],
  ] as const)
    it(`${name}: input-invalid, nothing sent`, async () => {
      const { error, requests } = await called({ extras });
      expect(error).toMatchObject({ code: "input-invalid", message: `quote: its input extras is not JSON (${why}). Nothing was sent to the model.` });
      expect(requests).toBe(0);
    });
});
