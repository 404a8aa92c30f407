/**
 * Hunt 71: no bound on a tool's result. A server answering a call with megabytes of text (or thousands of content
 * blocks) had all of it shown to the model (a request no model takes: a provider 400 at every step, each paid
 * step's request bigger than any context) and kept in the journal's `done` record (megabytes written, and read
 * back by every resume). Now a result past 1,000,000 characters (as the model would read it) is a tool error the
 * model sees, `tool-failed`, saying how large it was and the limit, and nothing of it is kept. A changing tool did
 * run: its `done` record says it ran and its result was too large (never run again on its own).
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** Past the bound (1,000,000 characters), well under the SDK's stdio limit of 10 MB a message. */
const BIG = 3_000_000;
const TEXT = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"$BIG"}]}}';
const STRUCTURED = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"rows":"$BIG"}}}';
/** A small part for the model, and 3,000,000 characters for the user only (MCP's `annotations.audience: ["user"]`). */
const FOR_USER =
  '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"},{"type":"text","text":"$BIG","annotations":{"audience":["user"]}}]}}';
const ERROR = '{"jsonrpc":"2.0","id":$ID,"result":{"isError":true,"content":[{"type":"text","text":"$BIG"}]}}';
/** 3,000 blocks of 1,000 characters: each small, together past the bound. */
const BLOCKS = `{"jsonrpc":"2.0","id":$ID,"result":{"content":[${Array.from({ length: 3_000 }, () => `{"type":"text","text":"${"y".repeat(1_000)}"}`).join(",")}]}}`;

async function server() {
  return kept(
    await hunt45({
      tools: [
        tool45("export", true),
        tool45("peek"),
        tool45("peek_rows"),
        tool45("peek_error"),
        tool45("peek_blocks"),
        tool45("small"),
        tool45("peek_user"),
      ],
      big: BIG,
      raw: { export: TEXT, peek: TEXT, peek_rows: STRUCTURED, peek_error: ERROR, peek_blocks: BLOCKS, peek_user: FOR_USER },
    }),
  );
}

describe("a tool result past the bound", () => {
  it("of a changing tool: the model is told it ran and its result was too large; the done record says so, nothing of it kept, not run again", async () => {
    const { client, logged } = await server();
    const desk = await makeDesk(client, { timeout: 30_000 });
    const lm = deskModel({ name: "export", input: {} });
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, lm });
    const answer = await chat.send("Export it.");
    expect(answer).toMatch(/^failed: .*export ran.*3,000,000 characters.*1,000,000/);
    expect(lm.requests).toHaveLength(2);
    const told = lm.requests[1]!.messages.find((m) => m.role === "tool")!;
    expect(told.content.length).toBeLessThan(2_000);
    const records = await store.read("sam");
    expect(JSON.stringify(records).length).toBeLessThan(50_000);
    const tools = (records as unknown as { kind: string; state?: string; error?: string; output?: unknown }[]).filter((r) => r.kind === "tool");
    expect(tools.map((r) => r.state)).toEqual(["started", "done"]);
    expect(tools[1]!.error).toMatch(/ran.*too large|ran.*past/);
    expect(tools[1]!.output).toBeUndefined();
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
    expect(logged()).toEqual([{ tool: "export", keys: [] }]);
  }, 90_000);

  for (const name of ["peek", "peek_rows", "peek_error", "peek_blocks"])
    it(`of a reading tool (${name}): tool-failed, saying the size and the bound, not the result`, async () => {
      const { client } = await server();
      const tools = await mcpTools(client, { timeout: 30_000 });
      const tool = tools.find((t) => t.name === name)!;
      const error = await tool.runAsTool({}, ctx45().ctx).then(
        (v: unknown) => `returned ${String(v).length} characters`,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "FunctaiError", code: "tool-failed" });
      expect((error as Error).message).toMatch(/past .*1,000,000 characters/);
      expect((error as Error).message.length).toBeLessThan(2_000);
    }, 90_000);

  it("a result under the bound is shown as it is (guard)", async () => {
    const { client } = await server();
    const tools = await mcpTools(client, { timeout: 30_000 });
    expect(await tools.find((t) => t.name === "small")!.runAsTool({}, ctx45().ctx)).toBe("ran small {}");
  }, 90_000);

  // Decided (the lead): parts for the user only (`ctx.show`, kept whole in the call's `done` record) are kept up to
  // 2,000,000 characters a call; a part past that is a note in its place, for the person: the tool's result for the
  // model stands (a large screenshot does not fail a reading tool, nor make a changing one read as failed).
  it("parts for the user only are bounded too: a note in the place of one past the bound, the result kept", async () => {
    const { client } = await server();
    const tools = await mcpTools(client, { timeout: 30_000 });
    const { ctx, shown } = ctx45();
    const output = await tools
      .find((t) => t.name === "peek_user")!
      .runAsTool({}, ctx)
      .catch((e: unknown) => e);
    expect(String(output)).toMatch(/^done\n/);
    expect(JSON.stringify(shown).length).toBeLessThan(1_000_000);
    expect(JSON.stringify(shown)).toContain("left out a text part of 3,000,0");
  }, 90_000);
});
