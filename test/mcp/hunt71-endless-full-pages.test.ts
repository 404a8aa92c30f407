/**
 * Hunt 71: a tools/list whose pages never end, each page full. mcpTools refused an endless listing only after
 * 1,000 pages (hunt 13), keeping every tool listed meanwhile: a server answering each page with 2,000 tools had
 * two million tools read, checked and held (gigabytes, many minutes) before the refusal, or the process ran out of
 * memory first. Now a listing past 10,000 tools is refused at once (remote-protocol), saying so.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError } from "../../src/index.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const toolNamed = (name: string): Tool => ({
  name,
  description: `The ${name} tool, which looks a record up by its id and says what it holds.`,
  inputSchema: { type: "object", properties: { id: { type: "string", description: "The record's id." } }, required: ["id"] },
  annotations: { readOnlyHint: true },
});

const PER_PAGE = 2_000;

/** Pages that never end, each of PER_PAGE tools (named by page and place). */
const endlessFull = new Proxy([] as Tool[][], {
  get: (target, key) =>
    key === "length"
      ? Number.POSITIVE_INFINITY
      : typeof key === "string" && /^\d+$/.test(key)
        ? Array.from({ length: PER_PAGE }, (_, i) => toolNamed(`tool_${key}_${i}`))
        : Reflect.get(target, key),
});

describe("a tools/list whose endless pages are each full", () => {
  it("is refused (remote-protocol) once it lists more tools than any server has, not after 1,000 pages", async () => {
    const { client, server } = await hunt13Server(endlessFull, () => ({ content: [] }));
    let timer: NodeJS.Timeout | undefined;
    // generous for a loaded machine: the bound is reached after 6 pages (well under 10 s alone); the old refusal
    // came after 1,000 pages, two million tools (many minutes)
    const listed = await Promise.race([
      mcpTools(client).catch((e: unknown) => e),
      new Promise((r) => {
        timer = setTimeout(() => r("still listing after 90 s"), 90_000);
      }),
    ]);
    clearTimeout(timer);
    await client.close();
    await server.close();
    expect(listed).toBeInstanceOf(FunctaiError);
    expect(listed).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/more than 10,000 tools/) });
  }, 120_000);

  it("a listing of 9,000 tools that ends is taken whole (guard)", async () => {
    const pages = Array.from({ length: 3 }, (_, p) => Array.from({ length: 3_000 }, (_, i) => toolNamed(`tool_${p}_${i}`)));
    const { client, server } = await hunt13Server(pages, () => ({ content: [] }));
    const tools = await mcpTools(client, { include: (t) => t.name.endsWith("_7") });
    expect(tools.map((t) => t.name)).toEqual(["tool_0_7", "tool_1_7", "tool_2_7"]);
    await client.close();
    await server.close();
  }, 120_000);
});
