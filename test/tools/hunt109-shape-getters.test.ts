/**
 * Hunt 109: a definition is read where it can fail, and what fails is a
 * FunctaiError naming the definition (a spec's own getters already were).
 * The input shape's getters were not: zod's recursive shapes are written
 * with a getter (`get parent() { return Category.optional() }`), and one
 * naming a schema defined further down, read when the tool was defined,
 * threw the raw ReferenceError out of `tool()`, `ai()` or `program()`; so
 * did a Proxy shape whose trap throws, and a listed tool whose getter
 * throws. Each is `settings-invalid` now, naming the definition, with the
 * error as its cause.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/functions/ai.js";
import { program } from "../../src/functions/program.js";
import { tool } from "../../src/tools/tool.js";
import { refusal } from "../fixtures/refused.js";

const boom = (): never => {
  throw new Error("the config is not loaded");
};

describe("an input shape that throws when read", () => {
  it("tool(): a shape getter naming a schema defined further down is settings-invalid naming the tool, saying to use z.lazy", () => {
    const e = refusal(() =>
      tool(
        "file",
        {
          description: "File it.",
          input: {
            get ticket() {
              return Ticket;
            },
          },
          effects: "reads",
        },
        () => "filed",
      ),
    );
    const Ticket = z.object({ title: z.string() });
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/tool file/);
    expect(e.message).toMatch(/input/);
    expect(e.message).toMatch(/z\.lazy/);
    expect(e.cause).toBeInstanceOf(ReferenceError);
    expect(Ticket).toBeDefined();
  });

  it("ai() and program(): a shape getter that throws is settings-invalid naming the function", () => {
    const input = {
      get id(): z.ZodString {
        return boom();
      },
    };
    const byAI = refusal(() => ai("answer", { description: "Answer.", input }));
    expect(byAI.code).toBe("settings-invalid");
    expect(byAI.message).toMatch(/answer/);
    expect(byAI.message).toMatch(/the config is not loaded/);
    const byProgram = refusal(() => program("route", { description: "Route.", input }, () => "ok"));
    expect(byProgram.code).toBe("settings-invalid");
    expect(byProgram.message).toMatch(/program route/);
  });

  it("a Proxy shape whose trap throws is settings-invalid", () => {
    const input = new Proxy({} as { id: z.ZodString }, { ownKeys: () => boom() });
    const e = refusal(() => tool("lookup", { description: "Look up.", input, effects: "reads" }, () => "ok"));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/tool lookup/);
  });
});

describe("a listed tool that throws when read", () => {
  it("ai(): a tool whose getter throws is settings-invalid naming its place in tools", () => {
    const odd = {
      get name(): string {
        return boom();
      },
    };
    const e = refusal(() => ai("desk", { description: "Help.", input: { ask: z.string() }, tools: [odd as never] }));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/desk: tools\[0\]/);
    expect(e.message).toMatch(/the config is not loaded/);
  });
});
