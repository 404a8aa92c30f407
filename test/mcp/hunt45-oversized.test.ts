/**
 * Hunt 45: a server's message larger than the SDK's stdio transport reads (10 MB on one line). The transport
 * drops it, tells `onerror` "ReadBuffer exceeded maximum size", and closes the connection: every request
 * waiting fails with the SDK's "Connection closed". A changing call's turn stopped for a person saying
 * "Connection closed, and no answer came back", when an answer did come (too large to read), and a reading
 * call's error told the model only "Connection closed". Now each says the server's message was past the
 * transport's limit, and which limit.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError, memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** Far past what each test waits: a call that waits it out fails its test. */
const TIMEOUT = 25_000;
const BIG = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"$BIG"}]}}';

async function server() {
  return kept(
    await hunt45({ tools: [tool45("export", true), tool45("export_peek")], big: 10 * 1024 * 1024 + 1_000, raw: { export: BIG, export_peek: BIG } }),
  );
}

describe("an answer past the stdio transport's limit", () => {
  it("to a changing call: its turn stops for a person, saying the message was too large and the limit, not that no answer came", async () => {
    const { client, logged } = await server();
    const desk = await makeDesk(client, { timeout: TIMEOUT });
    const lm = deskModel({ name: "export", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const e = await chat.send("Go.").catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/export may have run: .*larger than .*10,485,760 bytes/) });
    expect((e as Error).message).not.toMatch(/no answer came back/);
    expect(lm.requests).toHaveLength(1);
    expect(logged()).toEqual([{ tool: "export", keys: [] }]);
    const [turn] = await chat.turns();
    expect(turn!.unfinished.map((t) => t.name)).toEqual(["export"]);
  }, 60_000);

  it("to a reading call: remote-closed, saying the message was too large and the limit", async () => {
    const { client } = await server();
    const [, peek] = await mcpTools(client, { timeout: TIMEOUT });
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-closed",
      message: expect.stringMatching(/export_peek could not be called: .*larger than .*10,485,760 bytes/),
    });
  }, 60_000);

  it("to tools/list: mcpTools fails remote-closed, saying the message was too large and the limit", async () => {
    const huge = { ...tool45("export"), description: "x".repeat(10 * 1024 * 1024 + 1_000) };
    const { client } = kept(await hunt45({ tools: [huge] }));
    const e = await mcpTools(client, { timeout: TIMEOUT }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-closed", message: expect.stringMatching(/could not be listed: .*larger than .*10,485,760 bytes/) });
  }, 60_000);
});
