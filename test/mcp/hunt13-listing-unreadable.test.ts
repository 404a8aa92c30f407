/**
 * Hunt 13: a listing the SDK cannot read. A server whose tools/list answer
 * breaks MCP's schema (an annotation hint that is not a boolean, a tool with
 * no input schema) is refused (`remote-protocol`). What is wrong is said "in
 * a line: a ZodError's issues by path rather than its JSON dump", as for a
 * call's unreadable answer (adapters/mcp/result.ts `unreadable`, and
 * hunt4-server.test.ts: "no ZodError dump"): the listing's refusal carried
 * the SDK's ZodError dumped as JSON, many lines of brackets with no path a
 * person can read.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const fine: Tool = { name: "peek", description: "Look.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };

describe("a tools/list answer the SDK cannot read", () => {
  it("is refused (remote-protocol) saying where it breaks MCP's schema, in a line, not as a ZodError dump", async () => {
    for (const [broken, where] of [
      [{ name: "refund", inputSchema: { type: "object" }, annotations: { readOnlyHint: "true" } }, /tools\.1\.annotations\.readOnlyHint: /],
      [{ name: "refund" }, /tools\.1\.inputSchema: /],
    ] as const) {
      const { client, calls } = await hunt13Server([[fine, broken as unknown as Tool]], () => ({ content: [] }));
      const e = await mcpTools(client).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(FunctaiError);
      expect((e as FunctaiError).code).toBe("remote-protocol");
      expect((e as Error).message).toMatch(/^the MCP server's tools could not be listed: /);
      expect((e as Error).message).toMatch(where);
      expect((e as Error).message).not.toMatch(/\n|"code"|\[\s*\{/);
      expect(calls).toEqual([]);
    }
  });
});
