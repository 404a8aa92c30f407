/**
 * mcpTools' options and a server's listing at their edges: options of the
 * wrong type are refused (an `include` given as one string was matched as
 * a substring: `"refund_order"` took `refund` and `order` too), a user's
 * `include` test that throws is a FunctaiError, a listing that names one
 * tool twice is refused, and a tool name providers refuse says how to
 * leave that tool out.
 */
import { describe, expect, it } from "vitest";
import { mcpTools, type McpClient } from "../../adapters/mcp/index.js";
import { refusalOf as refusal } from "../fixtures/refused.js";

const info = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" as const, properties: {} } });

/** A client whose server lists these tools (one page). */
const listing = (...names: string[]): McpClient =>
  ({
    listTools: async () => ({ tools: names.map(info) }),
    callTool: async () => ({ content: [{ type: "text", text: "ok" }] }),
  }) as unknown as McpClient;


describe("mcpTools options of the wrong type", () => {
  it("an include that is one string is refused, never matched as a substring", async () => {
    const client = listing("refund", "order", "refund_order", "lookup");
    const e = await refusal(() => mcpTools(client, { include: "refund_order" as never }));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/include/);
    expect((await mcpTools(client, { include: ["refund_order"] })).map((t) => t.name)).toEqual(["refund_order"]);
  });

  it("an include list with an entry that is not text, options or effects that are not objects, are refused", async () => {
    const client = listing("refund");
    for (const options of [null, "refund", { include: [1] }, { include: null }, { effects: "reads" }, { effects: ["reads"] }])
      expect((await refusal(() => mcpTools(client, options as never))).code, JSON.stringify(options)).toBe("settings-invalid");
  });

  it("an include test that throws is a FunctaiError that keeps the cause", async () => {
    const boom = new Error("boom");
    const e = await refusal(() =>
      mcpTools(listing("refund"), {
        include: () => {
          throw boom;
        },
      }),
    );
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/include/);
    expect(e.message).toMatch(/boom/);
    expect(e.cause).toBe(boom);
  });
});

describe("a server's listing at its edges", () => {
  it("a listing that names one tool twice is refused, naming it (the model could not tell them apart)", async () => {
    const e = await refusal(() => mcpTools(listing("lookup", "refund", "lookup")));
    expect(e.code).toBe("remote-protocol");
    expect(e.message).toMatch(/"lookup"/);
  });

  it("a tool name providers refuse is refused up front, saying how to leave that tool out", async () => {
    const client = listing("lookup", "orders.refund");
    const e = await refusal(() => mcpTools(client));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/"orders\.refund"/);
    expect(e.message).toMatch(/include/);
    expect((await mcpTools(client, { include: ["lookup"] })).map((t) => t.name)).toEqual(["lookup"]);
  });

  it("a tool whose input names or schema type providers refuse is refused up front (every request of the turn was a 400)", async () => {
    const client = (inputSchema: Record<string, unknown>): McpClient =>
      ({
        listTools: async () => ({ tools: [info("lookup"), { name: "search", inputSchema }] }),
        callTool: async () => ({ content: [] }),
      }) as unknown as McpClient;
    for (const [schema, named] of [
      [{ type: "object", properties: { "order id": { type: "string" } } }, /"order id"/],
      [{ type: "object", properties: { ["x".repeat(65)]: { type: "string" } } }, /x{65}/],
      [{ type: "string" }, /object/],
      [{ properties: {} }, /object/],
    ] as const) {
      const e = await refusal(() => mcpTools(client(schema)));
      expect(e.code, JSON.stringify(schema)).toBe("settings-invalid");
      expect(e.message).toMatch(/search/);
      expect(e.message).toMatch(named);
      expect(e.message).toMatch(/include/);
      expect((await mcpTools(client(schema), { include: ["lookup"] })).map((t) => t.name)).toEqual(["lookup"]);
    }
    const fine = await mcpTools(client({ type: "object", properties: { "order.id-2_b": { type: "string" } } }));
    expect(fine.map((t) => t.name)).toEqual(["lookup", "search"]);
  });
});
