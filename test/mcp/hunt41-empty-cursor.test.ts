/**
 * Hunt 41: a tools/list answer with `nextCursor: ""`. MCP says a page with no
 * cursor is the last; servers whose cursor is a string field of their own
 * type left empty (Go's `omitempty` aside) write `""` for "no more pages",
 * and the first page is the one asked for with no cursor, which a server
 * cannot tell from `""`. mcpTools took `""` as a cursor: it asked for the
 * first page again, saw `""` twice and refused the whole listing as pages
 * going round in a circle (`remote-protocol`): none of the tools could be had.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

async function server(pages: Record<string, unknown>) {
  const s = await hunt35(pages);
  return kept(s);
}

const lists = (logged: Record<string, unknown>[]) => logged.filter((l) => "list" in l).map((l) => l.list);

describe('a tools/list answer with nextCursor: ""', () => {
  it("is the last page: its tools are listed, and no further page is asked for", async () => {
    const { client, logged } = await server({ "": { tools: [toolNamed("lookup"), toolNamed("refund", true)], nextCursor: "" } });
    const tools = await mcpTools(client);
    expect(tools.map((t) => [t.name, t.toolEffects])).toEqual([
      ["lookup", "reads"],
      ["refund", "changes"],
    ]);
    expect(lists(logged())).toEqual([""]);
  }, 30_000);

  it("after pages with a cursor: every page's tools, in order, and the page after it is not asked for", async () => {
    const { client, logged } = await server({
      "": { tools: [toolNamed("lookup")], nextCursor: "p2" },
      p2: { tools: [toolNamed("refund", true)], nextCursor: "" },
    });
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(["lookup", "refund"]);
    expect(lists(logged())).toEqual(["", "p2"]);
  }, 30_000);
});
