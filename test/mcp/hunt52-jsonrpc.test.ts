/**
 * Hunt 52: an answer to a call whose `jsonrpc` is wrong ("1.0", the number 2) or left out, as a server of
 * another make may write it. The SDK's transport cannot read it (its schema takes `"2.0"` only), drops it and
 * tells only `onerror`: the call it answered waited out its whole timeout, then said "timed out, and no answer
 * came back". As hunt 45 did for an answer whose `id` is `null`, the one call waiting now fails at once: a
 * changing call's turn stops for a person (the server answered it: it may have acted), a reading call is a tool
 * error the model sees. A request or notification of the server's with a wrong `jsonrpc` (it has a `method`)
 * answers no call: the call gets its own answer.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";
import { failsAtOnce } from "./fixtures/unreadable-answer.js";

const kept = closedAfterEach();

/** Far past what each test waits (10 s, generous on a loaded machine): a call that waits it out fails its test. */
const TIMEOUT = 20_000;

const ANSWERS = {
  "a result with no jsonrpc": '{"id":$ID,"result":{"content":[{"type":"text","text":"done"}]}}',
  'a result with jsonrpc "1.0"': '{"jsonrpc":"1.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]}}',
  "an error with jsonrpc 2 (a number)": '{"jsonrpc":2,"id":$ID,"error":{"code":-32603,"message":"boom"}}',
  "an error with no jsonrpc and no id": '{"error":{"code":-32600,"message":"Invalid request"}}',
};

describe("an answer whose jsonrpc is wrong or missing", () => {
  failsAtOnce(kept, ANSWERS, /peek could not be read: its (jsonrpc|id) is not as JSON-RPC says/, TIMEOUT);

  it("a result with no jsonrpc is said as such", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("peek")], raw: { peek: ANSWERS["a result with no jsonrpc"] } }));
    const [peek] = await mcpTools(client, { timeout: TIMEOUT });
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      message: expect.stringContaining('its jsonrpc is not as JSON-RPC says ("2.0")'),
    });
  }, 40_000);

  for (const [what, noise] of Object.entries({
    "a notification": '{"jsonrpc":"1.0","method":"notifications/message","params":{"level":"info","data":"x"}}',
    "a request": '{"jsonrpc":"1.0","id":"s-1","method":"ping"}',
  }))
    it(`${what} of the server's with jsonrpc "1.0" (it has a method) fails no call: the call gets its own answer`, async () => {
      const answer = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"fine"}]}}';
      const { client } = kept(await hunt45({ tools: [tool45("refund", true)], raw: { refund: `${noise}\n${answer}` } }));
      const [refund] = await mcpTools(client, { timeout: TIMEOUT });
      expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("fine");
    }, 40_000);
});

describe("JSON lines with no jsonrpc that are no answer", () => {
  it("a logger's JSON line on stdout (no result or error, keys of its own) fails no call: the call gets its own answer", async () => {
    const noise = '{"level":30,"time":1,"msg":"calling refund","id":"log-1"}\n{"result":"ok","pid":7}';
    const answer = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"fine"}]}}';
    const { client } = kept(await hunt45({ tools: [tool45("refund", true)], raw: { refund: `${noise}\n${answer}` } }));
    const [refund] = await mcpTools(client, { timeout: TIMEOUT });
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("fine");
  }, 40_000);
});
