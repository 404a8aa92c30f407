/**
 * A program's body returns what its output schema takes, and the call gives
 * what the schema makes of it: the value the body returns is read by
 * `output` once (program.ts, `readWith(output, value)`), as an AI function's
 * reply is. Before, the body was typed to return the schema's *output*
 * (`z.output<O>`): with a transform, a default or a pipe, a body that
 * type-checked was refused at run time (`output-invalid`), and the one that
 * ran did not type-check. Checked by `tsc --noEmit` (this file is in
 * tsconfig.json) and run as a plain test.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { program } from "../../src/index.js";
import { refusalOf } from "../fixtures/refused.js";

describe("a program whose output schema is not its own input (a transform, a default, a pipe)", () => {
  it("its body returns what the schema takes; the call gives what the schema makes", async () => {
    const count = program(
      "count",
      { description: "Count the letters.", input: { text: z.string() }, output: z.string().transform((s) => s.length) },
      ({ text }) => text,
    );
    const result = await count("kettle");
    expectTypeOf(result).toEqualTypeOf<number>();
    expect(result).toBe(6);

    const label = program(
      "label",
      { description: "A label, or none.", input: { text: z.string() }, output: z.string().default("none") },
      ({ text }) => (text === "" ? undefined : text),
    );
    expectTypeOf(await label("")).toEqualTypeOf<string>();
    expect(await label("")).toBe("none");
    expect(await label("tea")).toBe("tea");

    const amount = program(
      "amount",
      { description: "Read an amount.", input: { text: z.string() }, output: z.string().pipe(z.coerce.number()) },
      ({ text }) => text.trim(),
    );
    expect(await amount(" 39 ")).toBe(39);
  });

  it("a body that returns the schema's output is refused by the type, as it is at run time (output-invalid)", async () => {
    const count = program(
      "count",
      { description: "Count the letters.", input: { text: z.string() }, output: z.string().transform((s) => s.length) },
      // @ts-expect-error: the schema reads what the body returns as its input (a string): a number is refused when it runs
      ({ text }) => text.length,
    );
    expect((await refusalOf(() => count("kettle"))).code).toBe("output-invalid");
  });
});
