/**
 * An input named `__proto__` passed every check (it is letters and _, as
 * providers allow), but a value given for it is never kept as an input:
 * the parsed object's prototype is set instead. The tool ran with `{}`,
 * however the model filled it in (and an object given for it became the
 * prototype of the tool's input). Such a name is refused up front.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, tool } from "../../src/index.js";
import { refusal } from "../fixtures/refused.js";

/** A shape with an own, enumerable key `__proto__` (as JSON.parse or a computed key makes it). */
const protoShape = (): Record<string, z.ZodType> => JSON.parse('{"__proto__": 0, "id": 0}', (key, value) => (key === "" ? value : z.string()));


describe("an input named __proto__", () => {
  it("the shape used here does hold an own __proto__ input", () => {
    expect(Object.keys(protoShape())).toEqual(["__proto__", "id"]);
  });

  it("is refused by tool(), ai() and program(), naming it", () => {
    const makers = [
      () => tool("t", { description: "d", input: protoShape() }, () => "ok"),
      () => ai("f", { description: "d", input: protoShape() }),
      () => program("p", { description: "d", input: protoShape(), output: z.string() }, async () => "ok"),
    ];
    for (const make of makers) {
      const e = refusal(make);
      expect(e.code).toBe("settings-invalid");
      expect(e.message).toMatch(/__proto__/);
    }
  });

  it("other names are taken as before, constructor and prototype included (they are own keys when parsed)", () => {
    const t = tool("t", { description: "d", input: { constructor: z.string(), prototype: z.string(), "a.b-c_1": z.string() } }, (i) => i);
    expect(t.inputSchema.parse({ constructor: "x", prototype: "y", "a.b-c_1": "z" })).toEqual({ constructor: "x", prototype: "y", "a.b-c_1": "z" });
  });
});
