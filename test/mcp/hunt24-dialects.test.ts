/**
 * Hunt 24: each MCP tool's schemas are checked in the JSON Schema dialect
 * they are written in. MCP reads a schema that names no `$schema` as
 * 2020-12 (see hunt13-dialect.test.ts); one that names draft-07 is still
 * draft-07 (its `items: [ … ]` is a tuple, which 2020-12 has no word for),
 * and one that names a dialect functai does not check is refused at
 * listing, saying so, not checked as another dialect. Output schemas are
 * read the same way.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError, ai } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const pointTool = (schema: Record<string, unknown>, point: Record<string, unknown>): Tool => ({
  name: "pin",
  description: "Pin a parcel's place.",
  inputSchema: { ...schema, type: "object", properties: { point }, required: ["point"] },
});

async function pin(tool: Tool, input: unknown) {
  const { client, calls } = await hunt13Server([[tool]], () => ({ content: [{ type: "text", text: "pinned" }] }));
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
  const reply = await desk("Pin it.", { lm: deskModel({ name: "pin", input }), approve: () => true });
  return { reply, calls };
}

const DRAFT07 = { $schema: "http://json-schema.org/draft-07/schema#" };
const TUPLE07 = { type: "array", items: [{ type: "number" }, { type: "number" }], minItems: 2 };

describe("a schema that names its dialect", () => {
  it("draft-07 (items as a list) is checked as draft-07: an input its tuple refuses is never sent", async () => {
    const { reply, calls } = await pin(pointTool(DRAFT07, TUPLE07), { point: ["north", "east"] });
    expect(reply).toMatch(/^failed: Error: invalid input for pin: .*must be number.*The tool did not run\.$/s);
    expect(calls).toEqual([]);
  });

  it("draft-07 (items as a list): an input that fits runs", async () => {
    const { reply, calls } = await pin(pointTool(DRAFT07, TUPLE07), { point: [51.5, -0.1] });
    expect(reply).toBe("ok: pinned");
    expect(calls).toEqual([{ name: "pin", args: { point: [51.5, -0.1] } }]);
  });

  it("no $schema and a list of items (a draft-07 tuple, which 2020-12 cannot read): read as draft-07, its tuple checked", async () => {
    const refused = await pin(pointTool({}, TUPLE07), { point: ["north", "east"] });
    expect(refused.reply).toMatch(/^failed: Error: invalid input for pin: .*must be number.*The tool did not run\.$/s);
    expect(refused.calls).toEqual([]);
    const fits = await pin(pointTool({}, TUPLE07), { point: [51.5, -0.1] });
    expect(fits.reply).toBe("ok: pinned");
  });

  it("2020-12 named with https and no closing # is 2020-12: prefixItems refuse what does not fit", async () => {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema" };
    const { reply, calls } = await pin(pointTool(schema, { type: "array", prefixItems: [{ type: "number" }] }), { point: ["north"] });
    expect(reply).toMatch(/^failed: Error: invalid input for pin: .*must be number.*The tool did not run\.$/s);
    expect(calls).toEqual([]);
  });

  it("2019-09 is checked as 2019-09 (dependentRequired)", async () => {
    const tool: Tool = {
      name: "ship",
      description: "Ship a parcel.",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2019-09/schema",
        type: "object",
        properties: { insured: { type: "boolean" }, value: { type: "number" } },
        dependentRequired: { insured: ["value"] },
      },
    };
    const { client, calls } = await hunt13Server([[tool]], () => ({ content: [{ type: "text", text: "shipped" }] }));
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
    const reply = await desk("Ship it.", { lm: deskModel({ name: "ship", input: { insured: true } }), approve: () => true });
    expect(reply).toMatch(/^failed: Error: invalid input for ship: .*value.*The tool did not run\.$/s);
    expect(calls).toEqual([]);
  });

  it("a dialect functai does not check (draft-04) is refused at listing, naming it: settings-invalid, leave it out with include", async () => {
    const old = pointTool({ $schema: "http://json-schema.org/draft-04/schema#" }, { type: "array" });
    const other: Tool = { name: "other", inputSchema: { type: "object" } };
    const { client } = await hunt13Server([[old, other]], () => ({ content: [{ type: "text", text: "ok" }] }));
    const error = await mcpTools(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "settings-invalid" });
    expect((error as Error).message).toMatch(/pin has an input schema that cannot be checked: its \$schema .*draft-04.* names a JSON Schema dialect/);
    expect((await mcpTools(client, { include: ["other"] })).map((t) => t.name)).toEqual(["other"]);
  });

  it("an output schema in 2020-12 (no $schema) is checked as 2020-12: structured content its prefixItems refuse is not shown as a result", async () => {
    const tool: Tool = {
      name: "locate",
      description: "Where a parcel is.",
      inputSchema: { type: "object" },
      outputSchema: {
        type: "object",
        properties: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] } },
        required: ["point"],
      },
      annotations: { readOnlyHint: true },
    };
    const { client } = await hunt13Server([[tool]], () => ({ content: [{ type: "text", text: "" }], structuredContent: { point: ["north", 3] } }));
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
    const reply = await desk("Where?", { lm: deskModel({ name: "locate", input: {} }) });
    expect(reply).toMatch(/^failed: .*locate could not be read: its structured content does not match the tool's output schema: .*must be number/s);
  });
});
