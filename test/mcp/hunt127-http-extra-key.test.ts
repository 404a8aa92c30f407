/**
 * Hunt 127: over Streamable HTTP, an answer to a call with a top-level key JSON-RPC does not name
 * (`{ jsonrpc, id, result, extra }`), as a server of another make may write it. Sent as the one event of the POST's
 * stream, the SDK's transport dropped it (told only to onerror) and the call waited out its whole timeout; sent as
 * a JSON answer, the POST failed with the SDK's bare ZodError: a changing call's turn stopped for a person saying
 * "no answer came back" (one did), a reading call was a tool error with no code, the ZodError's JSON dump its words.
 * Now, as over stdio, it is the call's answer that cannot be read: a changing call "may have run: the MCP server's
 * answer could not be read", a reading call `remote-protocol`, each naming the key.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { rawAnswerServer } from "./fixtures/raw-answers.js";

const kept = closedAfterEach();

const EXTRA = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]},"extra":1}';
const TIMEOUT = 600_000;

describe("over Streamable HTTP, an answer with a top-level key JSON-RPC does not name", () => {
  it("to a changing call: its turn stops for a person, saying the server's answer could not be read (not that none came)", async () => {
    const { client, calls } = kept(await rawAnswerServer([tool45("refund", true)], EXTRA));
    const desk = await makeDesk(client, { timeout: TIMEOUT });
    const chat = desk.conversation("sam", { store: memoryStore(), lm: deskModel({ name: "refund", input: {} }) });
    const e = await chat.send("Go.").catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/refund may have run: .*could not be read .*"extra"/) });
    expect(calls).toEqual(["refund"]);
  }, 30_000);

  for (const stream of [false, true])
    it(`to a reading call (${stream ? "an event of its stream" : "a JSON answer"}): a tool error (remote-protocol) naming the key`, async () => {
      const { client } = kept(await rawAnswerServer([tool45("peek")], EXTRA, stream));
      const [peek] = await mcpTools(client, { timeout: TIMEOUT });
      await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
        code: "remote-protocol",
        message: expect.stringMatching(/peek could not be read: it has the key "extra" beside/),
      });
    }, 30_000);
});
