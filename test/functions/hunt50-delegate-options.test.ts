/**
 * `delegate(program, { name? })` takes a name and nothing else. A key that is
 * none (`nmae`, or `description` / `effects` hoped to be set here) was read by
 * nothing, and the delegate went on under the program's own name and effects
 * without a word; refused (`settings-invalid`) when it is made, as the specs
 * of `tool`, `ai` and `program` refuse a key they do not read.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { delegate, FunctaiError, program } from "../../src/index.js";

const notes = program("notes", { description: "The notes.", input: { topic: z.string() }, effects: "reads" }, ({ topic }) => `notes on ${topic}`);

describe("delegate's options", () => {
  for (const options of [{ nmae: "billing" }, { name: "billing", effects: "reads" }, { description: "Other." }]) {
    it(`refuses ${JSON.stringify(options)}`, () => {
      let thrown: unknown;
      try {
        delegate(notes, options as never);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(FunctaiError);
      expect((thrown as FunctaiError).code).toBe("settings-invalid");
      expect((thrown as FunctaiError).message).toContain(Object.keys(options).find((k) => k !== "name")!);
    });
  }

  it("takes a name, none, or null", () => {
    expect(delegate(notes, { name: "billing" }).name).toBe("billing");
    expect(delegate(notes).name).toBe("notes");
    expect(delegate(notes, null).name).toBe("notes");
    expect(delegate(notes, {}).name).toBe("notes");
  });
});
