/**
 * Hunt 13: input schemas with oneOf, anyOf, allOf, enum or not at their top
 * level. mcpTools refuses up front a tool whose "name, input names or schema
 * providers refuse" (`settings-invalid`, "leave it out with include"), since
 * "a request offering such a tool is refused whole (a 400 at every step)"
 * (adapters/mcp/options.ts, `offerable`). Both providers functai ships refuse
 * these keywords at the top of a tool's schema, whatever the tool is:
 * Anthropic ("input_schema does not support oneOf, allOf, or anyOf at the top
 * level") and OpenAI ("schema must have type 'object' and not have
 * 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"); MCP servers list
 * such schemas (`anyOf: [{ required: ["title"] }, …]`, "at least one of").
 * mcpTools took them, and every request of a turn offering one failed.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { refusalOf } from "../fixtures/refused.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const peek: Tool = {
  name: "peek",
  description: "Look.",
  inputSchema: { type: "object", properties: { account: { type: "string" } } },
  annotations: { readOnlyHint: true },
};
const update = (top: Record<string, unknown>): Tool => ({
  name: "update_issue",
  description: "Update an issue: at least one field.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" }, title: { type: "string" }, body: { type: "string" } },
    required: ["id"],
    ...top,
  },
});

describe("an input schema with oneOf, anyOf, allOf, enum or not at its top level", () => {
  for (const [keyword, value] of [
    ["anyOf", [{ required: ["title"] }, { required: ["body"] }]],
    ["oneOf", [{ required: ["title"] }, { required: ["body"] }]],
    ["allOf", [{ required: ["id"] }]],
    ["enum", [{ id: "I-1" }]],
    ["not", { required: ["title", "body"] }],
  ] as const)
    it(`${keyword}: refused up front (settings-invalid), naming the tool and the keyword, saying how to leave it out`, async () => {
      const { client } = await hunt13Server([[peek, update({ [keyword]: value })]], () => ({ content: [] }));
      const e = await refusalOf(() => mcpTools(client));
      expect(e.code).toBe("settings-invalid");
      expect(e.message).toMatch(/update_issue/);
      expect(e.message).toContain(keyword);
      expect(e.message).toMatch(/include/);
      expect((await mcpTools(client, { include: ["peek"] })).map((t) => t.name)).toEqual(["peek"]);
    });

  it("the same keywords inside a property's schema are taken, the schema given to the model as the server lists it", async () => {
    const inner: Tool = {
      name: "search",
      inputSchema: {
        type: "object",
        properties: {
          when: { anyOf: [{ type: "string" }, { type: "null" }] },
          kind: { enum: ["a", "b"] },
          q: { allOf: [{ type: "string" }], not: { const: "" } },
        },
      },
    };
    const { client } = await hunt13Server([[peek, inner]], () => ({ content: [] }));
    const tools = await mcpTools(client);
    expect(tools.map((t) => t.name)).toEqual(["peek", "search"]);
    expect(tools[1]!.parameters).toEqual(inner.inputSchema);
  });
});
