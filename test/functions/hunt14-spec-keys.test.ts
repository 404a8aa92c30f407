/**
 * `ai(name, spec)`: "`spec`: `description`, `input` (a zod shape), `output`
 * (zod type), `tools`, and any setting"; `tool(name, { description, input,
 * effects? }, run)`; `program(name, { description, input, output, effects? },
 * run)` (DESIGN "Public API"). A key that is none of those was read by
 * nothing, without a word: `aprove: "changes"` in a desk's spec made a desk
 * that asks nobody about a refund; `tool: [refund]` an AI function with no
 * tools; an `approve` given to `tool()` a tool that nobody is asked about.
 * Refused now where the definition is written (`settings-invalid`, naming
 * the key and what the spec takes).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusal } from "../fixtures/refused.js";

const refund = tool(
  "refund",
  { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" },
  ({ order_id }) => `refunded ${order_id}`,
);
const input = { message: z.string() };

describe("a spec with a key nothing reads", () => {
  it("ai(): a misspelt setting or part (aprove, tool, outputs, effects), named, with what the spec takes", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { aprove: "changes", tools: [refund] },
        /^desk: "aprove" is not part of its spec.*the spec takes description, input, output, tools, lm, .*approve/,
      ],
      [{ tool: [refund] }, /"tool" is not part/],
      [{ outputs: z.number() }, /"outputs" is not part/],
      [{ effects: "reads" }, /"effects" is not part/],
      [{ signal: AbortSignal.timeout(10), maxStep: 2 }, /"signal", "maxStep" are not part/],
    ];
    for (const [extra, says] of cases) {
      const e = refusal(() => ai("desk", { description: "Help.", input, ...extra } as never));
      expect(e.code, JSON.stringify(Object.keys(extra))).toBe("settings-invalid");
      expect(e.message).toMatch(says);
    }
  });

  it("tool(): an approve, an output or a misspelt effect", () => {
    for (const extra of [{ approve: "all" }, { output: z.string() }, { effect: "reads" }]) {
      const e = refusal(() => tool("refund", { description: "Refund.", input: { order_id: z.string() }, ...extra } as never, () => "ok"));
      expect(e.code).toBe("settings-invalid");
      expect(e.message).toMatch(/^tool refund: ".*" is not part of its spec.*the spec takes description, input, effects$/);
    }
  });

  it("program(): a misspelt effect or a tools list", () => {
    for (const extra of [{ effect: "reads" }, { tools: [refund] }]) {
      const e = refusal(() => program("support", { description: "Route.", input, ...extra } as never, () => "ok"));
      expect(e.code).toBe("settings-invalid");
      expect(e.message).toMatch(/^program support: ".*" is not part of its spec/);
    }
  });

  it("every key the specs do take is taken, settings among them", async () => {
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "Refunded."]);
    const desk = ai("desk", {
      description: "Help.",
      input,
      output: z.string(),
      tools: [refund],
      lm,
      approve: () => true,
      maxSteps: 3,
      temperature: 0,
      toolErrors: "raise",
      plugins: [],
    });
    expect(await desk("Refund A-1.")).toBe("Refunded.");
    const route = program("route", { description: "Route.", input, output: z.string(), effects: "reads", maxSteps: 2 }, ({ message }) => message);
    expect(await route("hi")).toBe("hi");
    expect(tool("note", { description: "Keep a note.", input: { text: z.string() } }, () => "noted").toolEffects).toBeNull();
  });
});
