/**
 * Hunt 45: an MCP tool with an input named `__proto__`. The SDK's reading of the listing drops that property
 * from the tool's input schema (building the object sets its prototype instead), and zod drops it from the
 * model's input: mcpTools offered the tool, the model was shown a schema without the input, and the server
 * was sent an input without it (or, with it `required`, every call was refused as missing it). README: input
 * names are never `__proto__`. Now mcpTools refuses the tool (`settings-invalid`), saying how to leave it
 * out; the server's other tools are still usable.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** A tool whose inputs are `__proto__` and `note`, as a server lists it (JSON, the key an own property). */
const proto = JSON.parse(
  '{"name":"tag","description":"Tag it.","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"},"note":{"type":"string"}}}}',
) as unknown;

describe("an MCP tool with an input named __proto__", () => {
  it("is refused by mcpTools (settings-invalid), naming it and how to leave it out", async () => {
    const { client, logged } = kept(await hunt45({ tools: [proto, tool45("lookup")] }));
    await expect(mcpTools(client)).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringMatching(/the MCP tool tag has an input named "__proto__".*leave it out with mcpTools\(client, \{ include \}\)/),
    });
    expect(logged()).toEqual([]);
  }, 30_000);

  it("left out with include, the other tools are usable", async () => {
    const { client, logged } = kept(await hunt45({ tools: [proto, tool45("lookup", false, { note: { type: "string" } })] }));
    const [lookup, ...rest] = await mcpTools(client, { include: ["lookup"] });
    expect(rest).toEqual([]);
    expect(await lookup!.runAsTool({ note: "n" }, ctx45().ctx)).toBe('ran lookup {"note":"n"}');
    expect(logged()).toEqual([{ tool: "lookup", keys: ["note"] }]);
  }, 30_000);
});
