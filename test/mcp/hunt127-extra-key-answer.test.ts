/**
 * Hunt 127: an answer to a pending call with a top-level key JSON-RPC does not name
 * (`{"jsonrpc":"2.0","id":N,"result":{…},"extra":1}`). The SDK's strict reading drops it with the one issue
 * "Unrecognized key: extra" (a notification with such a key gives the same), and the call waited out its whole
 * timeout: a changing call's turn then stopped for a person as "timed out, and no answer came back". Now such a
 * line carrying the id of a call still waiting is that call's answer, which cannot be read: the call fails at
 * once, never read leniently. A changing call's turn stops for a person (the server answered: it may have acted),
 * a reading call is a tool error the model sees (`remote-protocol`), each naming the key.
 *
 * Each call's timeout is far past the test's own: a call that waits it out fails its test.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;
const EXTRA = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]},"extra":1}';
const ANSWER = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"fine"}]}}';

describe("an answer with a top-level key JSON-RPC does not name", () => {
  it("to a changing call: its turn stops for a person at once, saying the answer could not be read and why", async () => {
    const { client, logged } = kept(await hunt45({ tools: [tool45("refund", true)], raw: { refund: EXTRA } }));
    const desk = await makeDesk(client, { timeout: TIMEOUT });
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const e = await chat.send("Go.").catch((x: unknown) => x);
    expect(e).toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/refund may have run: .*could not be read \(it has the key "extra" beside jsonrpc, id, result and error/),
    });
    expect(lm.requests).toHaveLength(1);
    expect(logged()).toEqual([{ tool: "refund", keys: [] }]);
  }, 30_000);

  it("to a reading call: a tool error at once (remote-protocol) naming the key; the connection still answers", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("peek"), tool45("lookup")], raw: { peek: EXTRA } }));
    const [peek, lookup] = await mcpTools(client, { timeout: TIMEOUT });
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-protocol",
      message: expect.stringMatching(/peek could not be read: it has the key "extra" beside/),
    });
    expect(await lookup!.runAsTool({}, ctx45().ctx)).toBe("ran lookup {}");
  }, 30_000);

  it("an error answer with its id as a string (the SDK's Client matches it as a number): still that call's answer", async () => {
    const line = '{"jsonrpc":"2.0","id":"$ID","error":{"code":-32603,"message":"boom"},"trace":"x"}';
    const { client } = kept(await hunt45({ tools: [tool45("peek")], raw: { peek: line } }));
    const [peek] = await mcpTools(client, { timeout: TIMEOUT });
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-protocol",
      message: expect.stringMatching(/it has the key "trace" beside/),
    });
  }, 30_000);

  // guards (they pass before the fix too): such lines that answer no call waiting are blamed on none
  for (const [what, noise] of Object.entries({
    "a notification with such a key": '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"},"extra":1}',
    "an answer with such a key to an id no call waits for": '{"jsonrpc":"2.0","id":987654,"result":{"content":[]},"extra":1}',
  }))
    it(`${what} fails no call: the call gets its own answer`, async () => {
      const { client } = kept(await hunt45({ tools: [tool45("refund", true)], raw: { refund: `${noise}\n${ANSWER}` } }));
      const [refund] = await mcpTools(client, { timeout: TIMEOUT });
      expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("fine");
    }, 30_000);
});
