/**
 * A tool's definition read where it can fail: a spec whose getters throw
 * (an `effects` read from a config not loaded yet), and an input schema that
 * cannot be written as JSON Schema for the model (a default whose function
 * throws, a cyclic default). Each is a FunctaiError with a code (DESIGN:
 * "Every error a user can see is a FunctaiError with a code"), never the raw
 * error from inside the definition, and nothing is sent or run.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, program, resetConfiguration, tool } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { refusal } from "../fixtures/refused.js";

beforeEach(() => resetConfiguration());

const boom = () => {
  throw new Error("the config is not loaded");
};

describe("a spec whose getter throws", () => {
  it("tool(): an effects getter that throws is settings-invalid naming the tool and the key (it was the raw Error)", () => {
    const spec = {
      description: "Refund.",
      input: { id: z.string() },
      get effects(): "changes" {
        return boom();
      },
    };
    const e = refusal(() => tool("refund", spec, () => "ok"));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/tool refund/);
    expect(e.message).toMatch(/effects/);
    expect(e.message).toMatch(/the config is not loaded/);
    expect(e.cause).toBeInstanceOf(Error);
  });

  it("tool(): a description or input getter that throws is settings-invalid too", () => {
    const byDescription = {
      get description(): string {
        return boom();
      },
      input: { id: z.string() },
      effects: "reads" as const,
    };
    expect(refusal(() => tool("a", byDescription, () => "ok")).code).toBe("settings-invalid");
    const byInput = {
      description: "d",
      get input(): { id: z.ZodString } {
        return boom();
      },
      effects: "reads" as const,
    };
    expect(refusal(() => tool("b", byInput, () => "ok")).code).toBe("settings-invalid");
  });

  it("program() and ai(): a getter that throws is settings-invalid", () => {
    const programSpec = {
      description: "d",
      input: { id: z.string() },
      get effects(): "reads" {
        return boom();
      },
    };
    expect(refusal(() => program("p", programSpec, () => "ok")).code).toBe("settings-invalid");
    const aiSpec = {
      description: "d",
      input: { id: z.string() },
      get approve(): "changes" {
        return boom();
      },
    };
    expect(refusal(() => ai("f", aiSpec)).code).toBe("settings-invalid");
  });

  it("a spec whose getters work is read as before", () => {
    const spec = {
      description: "Refund.",
      input: { id: z.string() },
      get effects(): "changes" {
        return "changes";
      },
    };
    expect(tool("refund", spec, () => "ok").toolEffects).toBe("changes");
  });
});

describe("an input schema that cannot be offered to a model", () => {
  const throwingDefault = () =>
    tool("lookup", { description: "Look up.", input: { region: z.string().default(() => boom()) }, effects: "reads" }, () => "ok");
  const cyclicDefault = () =>
    tool(
      "lookup",
      {
        description: "Look up.",
        input: {
          opts: z.looseObject({}).default(() => {
            const o: Record<string, unknown> = {};
            o.self = o;
            return o;
          }),
        },
        effects: "reads",
      },
      () => "ok",
    );

  for (const [what, make] of [
    ["a default whose function throws", throwingDefault],
    ["a cyclic default", cyclicDefault],
  ] as const) {
    it(`${what}: a plain call fails with tool-failed naming the tool, before any model call (it was the raw error)`, async () => {
      const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [make()] });
      const lm = scripted(["done"]);
      const e = await desk("go", { lm }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(FunctaiError);
      expect((e as FunctaiError).code).toBe("tool-failed");
      expect((e as FunctaiError).message).toMatch(/lookup/);
      expect((e as FunctaiError).message).toMatch(/JSON Schema/);
      expect(lm.requests).toHaveLength(0);
    });
  }

  it("in a conversation: the send rejects with tool-failed, nothing is sent", async () => {
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [throwingDefault()] });
    const lm = scripted(["done"]);
    const e = await desk
      .conversation("c", { store: memoryStore(), lm })
      .send("go")
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("tool-failed");
    expect(lm.requests).toHaveLength(0);
  });

  it("a schema that can be written is offered as before (defaults and all)", async () => {
    const t = tool("lookup", { description: "Look up.", input: { region: z.string().default("eu") }, effects: "reads" }, ({ region }) => region);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t] });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: {} }] }, "done"]);
    expect(await desk("go", { lm })).toBe("done");
    expect(lm.requests[0]!.tools[0]!.parameters).toEqual({ type: "object", properties: { region: { default: "eu", type: "string" } } });
  });
});
