/**
 * Hunt 24: a server that lists one name twice. It was refused whatever the
 * caller took (`remote-protocol`): `include` could not leave the pair out,
 * as it leaves out any other tool functai cannot offer, so none of the
 * server's tools could be had. Only a tool the caller takes is refused for
 * it now: the model could not tell the two apart.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const PING: Tool = { name: "ping", description: "Is the server up?", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };

describe("a listing that names one tool twice", () => {
  const pair = (): Tool[] => [
    { name: "search", description: "Search orders.", inputSchema: { type: "object" } },
    PING,
    { name: "search", description: "Search customers.", inputSchema: { type: "object" } },
  ];

  it("is refused when the caller takes that name (remote-protocol, naming it and include)", async () => {
    const { client } = await hunt13Server([pair()], () => ({ content: [{ type: "text", text: "ok" }] }));
    for (const options of [{}, { include: ["search"] }, { include: (t: Tool) => t.description === "Search orders." }]) {
      const error = await mcpTools(client, options).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(FunctaiError);
      expect(error).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/two tools named "search".*include/) });
    }
  });

  it("the rest of its tools can be taken with include", async () => {
    const { client } = await hunt13Server([pair()], () => ({ content: [{ type: "text", text: "ok" }] }));
    expect((await mcpTools(client, { include: ["ping"] })).map((t) => t.name)).toEqual(["ping"]);
    expect((await mcpTools(client, { include: (t) => t.name === "ping" })).map((t) => t.name)).toEqual(["ping"]);
  });
});
