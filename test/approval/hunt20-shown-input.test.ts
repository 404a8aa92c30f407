/**
 * What an approval shows of a call's input. The input is checked to be JSON
 * before anything is shown, asked or run (README: "A tool whose input schema
 * gives what JSON cannot keep … fails the call (tool-failed) before it is
 * shown, asked or run"), so an input schema that gives a class instance with
 * a JSON form (`toJSON`: money in cents, a date) is taken, and runs as it is
 * when nobody is asked. But the approval's copy is made with
 * `structuredClone` (src/engine/approvals.ts shownInput), which refuses
 * functions: an instance with an arrow-function field (`format = () => …`,
 * the common way to bind a method) makes every call that asks anyone (an
 * approve function, a stream, a conversation) fail with a raw DataCloneError,
 * not a FunctaiError; and one without such a field is shown to the approve
 * function as a structured clone (fields, no methods), while a person
 * elsewhere is shown its JSON from the `waiting` record.
 *
 * Expected: the approval shows the input as JSON reads it (what the journal
 * keeps and a remote person sees), frozen; the tool still runs with its own
 * input. The fix belongs in src/engine/approvals.ts (shownInput: freeze
 * `JSON.parse(JSON.stringify(input))`), and it was
 * fixed there (this test was it.fails until then).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, resetConfiguration, tool, Waiting, type Approval } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

beforeEach(() => resetConfiguration());

class Money {
  constructor(readonly cents: number) {}
  format = (): string => `$${(this.cents / 100).toFixed(2)}`;
  toJSON(): number {
    return this.cents;
  }
}

function desk() {
  const RAN: string[] = [];
  const refund = tool(
    "refund",
    { description: "Refund.", input: { amount: z.number().transform((n) => new Money(Math.round(n * 100))) }, effects: "changes" },
    ({ amount }) => (RAN.push(amount.format()), "refunded"),
  );
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = () => scripted([{ toolCalls: [{ name: "refund", input: { amount: 5 } }] }, "done"]);
  return { fn, lm, RAN };
}

describe("an input schema that gives a class instance with a JSON form", () => {
  it("asking nobody: the tool runs with the instance (as it should)", async () => {
    const { fn, lm, RAN } = desk();
    expect(await fn("Refund.", { lm: lm() })).toBe("done");
    expect(RAN).toEqual(["$5.00"]);
  });

  it("an approve function is shown the input as JSON reads it, and the tool runs (it was a raw DataCloneError)", async () => {
    const { fn, lm, RAN } = desk();
    const shown: unknown[] = [];
    const approve = (a: Approval) => (shown.push(a.input), true);
    expect(await fn("Refund.", { lm: lm(), approve })).toBe("done");
    expect(shown).toEqual([{ amount: 500 }]);
    expect(RAN).toEqual(["$5.00"]);
  });

  it("a conversation under a rule waits, showing the input as JSON reads it (it failed with a raw DataCloneError)", async () => {
    const { fn, lm, RAN } = desk();
    const e = await fn
      .conversation("c", { store: memoryStore(), lm: lm(), approve: "changes" })
      .send("Refund.")
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(Waiting);
    expect((e as Waiting).approvals.map((a) => a.input)).toEqual([{ amount: 500 }]);
    expect(RAN).toEqual([]);
  });
});
