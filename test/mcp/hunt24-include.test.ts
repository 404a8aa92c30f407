/**
 * Hunt 24: `include` given as a test of each tool. A test written `async`
 * (it looks a policy up) answers with a promise, and a promise is truthy:
 * every tool the server lists was taken, the ones the test would have left
 * out included (a changing tool the caller meant the model never to see).
 * It is refused (`settings-invalid`), saying the test must answer at once.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const TOOLS: Tool[] = [
  { name: "find_order", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "wipe_orders", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
];

async function client() {
  return (await hunt13Server([TOOLS], () => ({ content: [{ type: "text", text: "ok" }] }))).client;
}

describe("an include test that answers with a promise", () => {
  it("is refused (settings-invalid), never taken as a yes for every tool", async () => {
    const readOnly = async (t: { annotations?: { readOnlyHint?: boolean } }) => t.annotations?.readOnlyHint === true;
    const error = await mcpTools(await client(), { include: readOnly as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "settings-invalid" });
    expect((error as Error).message).toMatch(/include answered a promise for the tool "find_order": it must answer at once/);
  });

  it("a test that answers at once, with true or with what is falsy, takes what it says", async () => {
    const tools = await mcpTools(await client(), { include: (t) => t.annotations?.readOnlyHint as boolean });
    expect(tools.map((t) => t.name)).toEqual(["find_order"]);
  });
});

/**
 * Options mcpTools does not know. A misspelt `include` (`inculde`) was read
 * by nothing: every tool of the server was taken, the destructive one the
 * caller meant to leave out included. It is refused, as other functai
 * options are, naming the key and the options there are.
 */
describe("an option mcpTools does not know", () => {
  it("is refused (settings-invalid), naming it, never ignored", async () => {
    const error = await mcpTools(await client(), { inculde: ["find_order"] } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "settings-invalid", message: expect.stringMatching(/"inculde".*include, effects/) });
  });

  it("an option left undefined is as one not given", async () => {
    const tools = await mcpTools(await client(), { include: ["find_order"], effects: undefined } as never);
    expect(tools.map((t) => t.name)).toEqual(["find_order"]);
  });
});
