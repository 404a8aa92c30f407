/**
 * Hunt 13: the JSON Schema dialect inputs are checked in. MCP (protocol
 * 2025-11-25, the SDK's latest) takes a schema with no `$schema` as JSON
 * Schema 2020-12, the dialect Python servers' schemas are written in (a
 * pydantic `tuple[float, float]` is `prefixItems`). The README: "an input is
 * checked against that schema before the tool runs". The SDK's validator,
 * which mcpTools uses, is Ajv's draft-07 class: it does not know 2020-12's
 * `prefixItems` (nor `dependentRequired`, `unevaluatedProperties`) and lets
 * through what they refuse, so such an input is sent to the server.
 *
 * Fixed in hunt 24: schemas are checked by Ajv's class for their dialect
 * (`ajv/dist/2020` when no `$schema` names another; `ajv` and `ajv-formats`
 * are optional peer dependencies of functai, as the SDK is). A schema that
 * names draft-07 is still checked as draft-07 (hunt24-dialects.test.ts).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const PIN: Tool = {
  name: "pin",
  description: "Pin a parcel's place.",
  inputSchema: {
    type: "object",
    properties: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], minItems: 2, maxItems: 2 } },
    required: ["point"],
  },
};

describe("an input schema in JSON Schema 2020-12 (no $schema: MCP's default dialect)", () => {
  it("an input its prefixItems refuse is refused before the tool runs, never sent", async () => {
    const { client, calls } = await hunt13Server([[PIN]], () => ({ content: [{ type: "text", text: "pinned" }] }));
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
    const reply = await desk("Pin it.", { lm: deskModel({ name: "pin", input: { point: ["north", "east"] } }), approve: () => true });
    expect(reply).toMatch(/^failed: Error: invalid input for pin: .*The tool did not run\.$/s);
    expect(calls).toEqual([]);
  });

  it("an input that fits runs (and the check is not stricter than the schema)", async () => {
    const { client, calls } = await hunt13Server([[PIN]], () => ({ content: [{ type: "text", text: "pinned" }] }));
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(client) });
    expect(await desk("Pin it.", { lm: deskModel({ name: "pin", input: { point: [51.5, -0.1] } }), approve: () => true })).toBe("ok: pinned");
    expect(calls).toEqual([{ name: "pin", args: { point: [51.5, -0.1] } }]);
  });
});
