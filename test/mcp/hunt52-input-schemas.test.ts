/**
 * Hunt 52: input schemas a server lists with `$ref` (to `$defs`, or draft-07's `definitions`), `oneOf` inside
 * a property, and `additionalProperties: false`: inputs are checked against them before the tool runs (the
 * model is refused what they refuse, the server never called), and what they take runs. A `$ref` to another
 * document (which functai does not fetch) makes the tool unusable: refused at mcpTools, saying so, not a
 * check that lets every input through.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45 } from "./fixtures/hunt45.js";
import { hunt52 } from "./fixtures/hunt52.js";

const kept = closedAfterEach();

const PAY = {
  name: "pay",
  description: "Pay.",
  inputSchema: {
    type: "object",
    $defs: { amount: { type: "number", minimum: 0 } },
    properties: {
      amount: { $ref: "#/$defs/amount" },
      kind: { oneOf: [{ const: "card" }, { const: "cash" }] },
      note: { $ref: "#/definitions/note" },
    },
    definitions: { note: { type: "string", maxLength: 5 } },
    required: ["amount", "kind"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false },
};

describe("input schemas with $ref, oneOf and additionalProperties: false", () => {
  it("what they refuse is refused before the tool runs; what they take runs", async () => {
    const s = kept(await hunt52({ tools: [PAY] }));
    const [pay] = await mcpTools(s.client);
    const refused = [
      { amount: -1, kind: "card" },
      { amount: 5, kind: "cheque" },
      { amount: 5, kind: "card", extra: 1 },
      { amount: 5, kind: "card", note: "too long" },
      { kind: "card" },
    ];
    for (const input of refused) expect(pay!.inputSchema.safeParse(input).success, JSON.stringify(input)).toBe(false);
    expect(pay!.inputSchema.safeParse({ amount: 5, kind: "cash", note: "hi" }).success).toBe(true);
    expect(await pay!.runAsTool({ amount: 5, kind: "cash" }, ctx45().ctx)).toBe("ran pay");
  }, 60_000);

  it("through a turn: the model's input with an extra key is refused, the server never called, the model told why", async () => {
    const s = kept(await hunt52({ tools: [PAY] }));
    const tools = await mcpTools(s.client);
    const lm = scripted([
      { toolCalls: [{ name: "pay", input: { amount: 5, kind: "card", tip: 2 } }] },
      (request) => `<result>${request.messages.filter((m) => m.role === "tool").at(-1)!.content}</result>`,
    ]);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const answer = await desk.conversation("sam", { store: memoryStore(), lm, approve: () => true }).send("Pay.");
    expect(answer).toMatch(/invalid input for pay: .*additional properties/i);
    expect(s.logged().filter((l) => l.method === "tools/call")).toEqual([]);
  }, 60_000);

  it("a $ref to another document: the tool is refused at mcpTools (settings-invalid), naming it", async () => {
    const remote = { ...PAY, name: "remote", inputSchema: { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } } };
    const s = kept(await hunt52({ tools: [remote] }));
    await expect(mcpTools(s.client)).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringMatching(/remote has an input schema that cannot be checked: .*example\.com\/a\.json/),
    });
  }, 60_000);
});
