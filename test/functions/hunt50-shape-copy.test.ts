/**
 * zod's `z.object(shape)` keeps the shape object it is given, so `ai`,
 * `program` and `tool`, which made their input schema from the spec's shape
 * as given, changed when that object changed after they were defined: a shape
 * shared as a base (`{ ...base }` forgotten) and added to for another
 * function made the first one require the new input, unseen, and a key added
 * later was never checked (a name a provider refuses, a value that is no zod
 * type). A definition's input is the shape as it was when it was defined.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, program, tool } from "../../src/index.js";
import { toolSpec } from "../../src/tools/tool.js";
import { scripted } from "../../src/testing/index.js";

describe("a shape changed after the definition", () => {
  it("an AI function keeps the inputs it was defined with", async () => {
    const base: Record<string, z.ZodType> = { q: z.string() };
    const answer = ai("answer", { description: "d", input: base });
    base.lang = z.string();
    base["not a name"] = z.string();
    const lm = scripted(["ok", "ok"]);
    expect(await answer("Where is A-1042?", { lm })).toBe("ok");
    expect(await answer({ q: "Where is A-1042?" }, { lm })).toBe("ok");
    expect(Object.keys(answer.inputSchema.shape)).toEqual(["q"]);
    // the program record's interface names the same inputs
    const chat = answer.conversation("c", { store: memoryStore(), lm: scripted(["ok"]) });
    await chat.send("Hi");
    const record = (await chat.store.read("c")).find((r) => (r as { kind: string }).kind === "program") as unknown as {
      interface: { inputs: { name: string }[] };
    };
    expect(record.interface.inputs.map((i) => i.name)).toEqual(["q"]);
  });

  it("a program keeps the inputs it was defined with", async () => {
    const base: Record<string, z.ZodType> = { q: z.string() };
    const p = program("p", { description: "d", input: base }, ({ q }) => `got ${String(q)}`);
    base.lang = z.string();
    expect(await p("x")).toBe("got x");
  });

  it("a tool offers the model the inputs it was defined with", () => {
    const base: Record<string, z.ZodType> = { order_id: z.string() };
    const t = tool("lookup", { description: "d", input: base, effects: "reads" }, () => "ok");
    base["bad key!"] = z.string();
    expect(Object.keys((toolSpec(t).parameters as { properties: object }).properties)).toEqual(["order_id"]);
  });
});
