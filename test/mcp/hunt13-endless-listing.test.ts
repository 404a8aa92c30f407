/**
 * Hunt 13: a server whose tools/list pages never end. mcpTools refuses a
 * listing whose cursor comes round again ("refused (remote-protocol), not
 * listed forever", listing.test.ts), so that a buggy server's listing is "a
 * FunctaiError rather than a hang". A server that answers every page with a
 * new cursor (an offset it never stops adding to) went on being asked
 * forever: mcpTools never settled, the tools it gathered growing without end.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const toolNamed = (name: string): Tool => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
});

/** Pages that never end: page n lists tool_n (or nothing) and points to page n + 1. */
const endless = (empty: boolean) =>
  new Proxy([] as Tool[][], {
    get: (target, key) =>
      key === "length"
        ? Number.POSITIVE_INFINITY
        : typeof key === "string" && /^\d+$/.test(key)
          ? empty
            ? []
            : [toolNamed(`tool_${key}`)]
          : Reflect.get(target, key),
  });

describe("a tools/list whose pages never end", () => {
  for (const empty of [false, true])
    it(`is refused (remote-protocol), not listed forever (${empty ? "empty pages" : "a new tool on each page"})`, async () => {
      const { client } = await hunt13Server(endless(empty), () => ({ content: [] }));
      const listed = await Promise.race([
        mcpTools(client).catch((e: unknown) => e),
        new Promise((r) => setTimeout(() => r("still listing after 20 s"), 20_000)),
      ]);
      expect(listed).toBeInstanceOf(FunctaiError);
      expect(listed).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/pages/) });
    }, 30_000);

  it("a listing of many pages that ends is followed to its end", async () => {
    const pages = Array.from({ length: 300 }, (_, n) => [toolNamed(`tool_${n}`)]);
    const { client } = await hunt13Server(pages, () => ({ content: [] }));
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(pages.map(([t]) => t!.name));
  }, 30_000);
});
