/**
 * Definitions that cannot work are refused where they are written
 * (`settings-invalid`, a message naming what is wrong), not with a TypeError,
 * and not later, at a call, as a provider's 400 or a crash in the tool loop.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, FunctaiError, program, tool } from "../../src/index.js";

/** The refusal `make` throws: a FunctaiError with `settings-invalid` whose message matches `says`. */
function refused(make: () => unknown, says: RegExp): void {
  let thrown: unknown;
  try {
    make();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, "it was not refused").toBeInstanceOf(FunctaiError);
  expect((thrown as FunctaiError).code).toBe("settings-invalid");
  expect((thrown as FunctaiError).message).toMatch(says);
}

const body = () => "ok";
const anyTool = (spec: unknown, run: unknown = body) => tool("t", spec as never, run as never);

describe("tool() refuses a spec that cannot work", () => {
  it("no spec, or one that is not an object", () => {
    refused(() => anyTool(undefined), /tool t: .*\{ description, input/);
    refused(() => anyTool(null), /tool t: .*\{ description, input/);
    refused(() => anyTool("look orders up"), /tool t: .*\{ description, input/);
  });

  it("an input that is not a shape of zod types", () => {
    refused(() => anyTool({ description: "d" }), /tool t: input must be .*shape/);
    refused(() => anyTool({ description: "d", input: "order_id" }), /tool t: input must be .*shape/);
    refused(() => anyTool({ description: "d", input: [z.string()] }), /tool t: input must be .*shape/);
    refused(() => anyTool({ description: "d", input: { order_id: "string" } }), /tool t: input order_id is not a zod type/);
  });

  it("a zod object given where its shape belongs, with the way out", () => {
    refused(() => anyTool({ description: "d", input: z.object({ id: z.string() }) }), /\.shape/);
  });

  it("input names a provider refuses (Anthropic: ^[a-zA-Z0-9_.-]{1,64}$)", () => {
    refused(() => anyTool({ description: "d", input: { "order id": z.string() } }), /"order id"/);
    refused(() => anyTool({ description: "d", input: { "filter[id]": z.string() } }), /"filter\[id\]"/);
    refused(() => anyTool({ description: "d", input: { ["k".repeat(65)]: z.string() } }), /1–64/);
    expect(anyTool({ description: "d", input: { "order.id": z.string(), "a-b_C9": z.number() } }).name).toBe("t");
  });

  it("a description that is not text", () => {
    refused(() => anyTool({ description: 5, input: {} }), /tool t: description must be text/);
  });

  it("a body that is a class, not a function to call", () => {
    refused(() => anyTool({ description: "d", input: {} }, class Lookup {}), /tool t: run must be a function/);
  });

  it("a name or effects that JSON cannot show (a BigInt) is still a refusal, not a TypeError", () => {
    refused(() => tool(1n as never, { description: "d", input: {} }, body), /tool name bigint must be/);
    refused(() => anyTool({ description: "d", input: {}, effects: 1n }), /effects must be "reads" or "changes"/);
  });
});

describe("program() refuses a spec that cannot work", () => {
  it("no spec", () => {
    refused(() => program("p", undefined as never, body), /program p: .*\{ description, input/);
  });

  it("an input that is not a shape of zod types, an output that is not a zod type", () => {
    refused(() => program("p", { description: "d" } as never, body), /program p: input must be/);
    refused(() => program("p", { description: "d", input: { n: 1 } } as never, body), /program p: input n is not a zod type/);
    refused(() => program("p", { description: "d", input: {}, output: "string" } as never, body), /program p: output must be a zod type/);
  });

  it("a description that is not text", () => {
    refused(() => program("p", { description: ["d"], input: {} } as never, body), /program p: description must be text/);
  });
});

describe("ai() refuses a spec that cannot work", () => {
  const t = tool("lookup", { description: "d", input: { id: z.string() }, effects: "reads" }, body);

  it("tools that are not a list (a string was read letter by letter: 'two tools are named undefined')", () => {
    refused(() => ai("f", { description: "d", input: {}, tools: "lookup" } as never), /f: tools must be a list/);
    refused(() => ai("f", { description: "d", input: {}, tools: { lookup: t } } as never), /f: tools must be a list/);
  });

  it("an entry of tools that is not a tool, named by its place", () => {
    refused(() => ai("f", { description: "d", input: {}, tools: [t, null] } as never), /f: tools\[1\] is not a tool/);
    refused(() => ai("f", { description: "d", input: {}, tools: [() => "hi"] } as never), /f: tools\[0\] is not a tool/);
    refused(() => ai("f", { description: "d", input: {}, tools: [{ name: "lookup" }] } as never), /f: tools\[0\] is not a tool/);
  });

  it("a made-up tool whose name a provider refuses", () => {
    const odd = { ...t, name: "look up" };
    refused(() => ai("f", { description: "d", input: {}, tools: [odd] } as never), /"look up"/);
  });

  it("a made-up tool whose effects are not reads, changes or null", () => {
    for (const toolEffects of ["read", undefined, Object]) {
      refused(() => ai("f", { description: "d", input: {}, tools: [{ ...t, toolEffects }] } as never), /tool lookup has effects/);
    }
  });

  it("an input that is not a shape of zod types, an output that is not a zod type", () => {
    refused(() => ai("f", { description: "d" } as never), /f: input must be/);
    refused(() => ai("f", { description: "d", input: { "my question": z.string() } }), /"my question"/);
    refused(() => ai("f", { description: "d", input: {}, output: "string" } as never), /f: output must be a zod type/);
  });
});

describe("delegate() refuses what is not an AI function or a program", () => {
  it("a plain tool or an object, with what it takes", () => {
    const t = tool("lookup", { description: "d", input: {} }, body);
    refused(() => delegate(t as never), /delegate takes an AI function or a program/);
    refused(() => delegate({} as never), /delegate takes an AI function or a program/);
  });

  it("options of null are no options (a TypeError before)", () => {
    const p = program("notes", { description: "d", input: {} }, body);
    expect(delegate(p, null as never).name).toBe("notes");
  });
});
