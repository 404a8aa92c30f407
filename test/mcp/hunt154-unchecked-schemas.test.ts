/**
 * Hunt 154: a taken tool whose input or output schema cannot be checked (a `$ref` to a schema elsewhere, which functai
 * does not fetch) refuses mcpTools whole, `settings-invalid`, naming the tool. Every other refusal of one tool of the
 * server says how to leave it out (`include`: the rest of its tools are usable); these said only what was wrong, and
 * now say that too. The server is the SDK's, over Streamable HTTP.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { refusalOf } from "../fixtures/refused.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { tool45 } from "./fixtures/hunt45.js";
import { httpServer52 } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

const ELSEWHERE = { $ref: "https://example.com/order.json" };

describe("a tool whose schema cannot be checked", () => {
  it("its input schema: refused naming the tool, saying to leave it out with include (which takes the rest)", async () => {
    const { client } = kept(await httpServer52([tool45("lookup"), tool45("remote", true, { order: ELSEWHERE })]));
    const e = await refusalOf(() => mcpTools(client));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(
      /^the MCP tool remote has an input schema that cannot be checked: .*example\.com\/order\.json.*; leave it out with mcpTools\(client, \{ include \}\)$/,
    );
    expect((await mcpTools(client, { include: ["lookup"] })).map((t) => t.name)).toEqual(["lookup"]);
  });

  it("its output schema: refused naming the tool, saying to leave it out with include", async () => {
    const remote = { ...tool45("remote"), outputSchema: { type: "object", properties: { order: ELSEWHERE } } };
    const { client } = kept(await httpServer52([tool45("lookup"), remote]));
    const e = await refusalOf(() => mcpTools(client));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(
      /^the MCP tool remote has an output schema that cannot be checked: .*example\.com\/order\.json.*; leave it out with mcpTools\(client, \{ include \}\)$/,
    );
  });
});
