/**
 * Hunt 35: a server (over stdio, in a process of its own) that writes
 * `null` for the fields of a tool's result it leaves out, as the servers
 * that write `nextCursor: null` do (see hunt35-null-cursor.test.ts):
 * `structuredContent: null`, `isError: null`, a part's `annotations: null`.
 * The SDK's schema of a result takes a value of the field's type or
 * nothing, so every answer of such a server "could not be read": each call
 * of a changing tool stopped its turn for a person (it may have run), each
 * reading call was a tool error.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

const TOOLS = { "": { tools: [toolNamed("refund", true), toolNamed("peek"), toolNamed("broken", true), toolNamed("failing")] } };
const ANSWERS = {
  refund: {
    content: [{ type: "text", text: "refunded 39.00", annotations: null, _meta: null }],
    structuredContent: null,
    isError: null,
  },
  peek: {
    content: [{ type: "text", text: "kettle", annotations: { audience: null, priority: null } }],
    structuredContent: null,
    isError: null,
  },
  // not null: a value of another type is still an answer that cannot be read
  broken: { content: [{ type: "text", text: "refunded" }], isError: "no" },
  failing: { content: [{ type: "text", text: "card declined", annotations: null }], structuredContent: null, isError: true },
};

async function desk() {
  const s = await hunt35(TOOLS, undefined, ANSWERS);
  kept(s);
  return { ...s, desk: await makeDesk(s.client) };
}

describe("a result whose left-out fields are null", () => {
  it("of a changing tool is its result (its text), not a call in doubt", async () => {
    const { desk: fn, logged } = await desk();
    const lm = deskModel({ name: "refund", input: {} });
    const chat = fn.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Refund A-1042.")).toBe("ok: refunded 39.00");
    expect(logged()).toContainEqual({ tool: "refund", phase: "begin" });
  }, 30_000);

  it("of a reading tool is its result; an annotation's null hints say nothing (shown to the model)", async () => {
    const { desk: fn } = await desk();
    expect(await fn("Peek.", { lm: deskModel({ name: "peek", input: {} }) })).toBe("ok: kettle");
  }, 30_000);

  it("isError: true beside nulls is still the tool's error the model sees", async () => {
    const { desk: fn } = await desk();
    expect(await fn("Fail.", { lm: deskModel({ name: "failing", input: {} }) })).toBe("failed: Error: card declined");
  }, 30_000);

  it('a field of another type (isError: "no") still cannot be read: a changing call is left for a person', async () => {
    const { client } = await desk();
    const fn = await makeDesk(client);
    const chat = fn.conversation("sam", { store: memoryStore(), lm: deskModel({ name: "broken", input: {} }) });
    await expect(chat.send("Go.")).rejects.toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/isError: /) });
    expect((await mcpTools(client)).length).toBe(4);
  }, 30_000);
});
