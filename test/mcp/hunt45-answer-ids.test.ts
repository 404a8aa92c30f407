/**
 * Hunt 45: an answer to a call whose `id` is not one the SDK can match: `null` (as JSON-RPC writes it for a
 * request the server could not read), left out of an error answer, or not a whole number. The SDK's transport
 * drops such a message (told only to `onerror`; one with no `id` to the Client's `onerror`, as "a response
 * for an unknown message ID"), and the call it answered waited out its whole timeout, then said "timed out,
 * and no answer came back". Now, as hunt 41 did for an answer whose result cannot be read, the one request
 * waiting fails at once: a changing call's turn stops for a person (the server answered it), a reading call is
 * a tool error. An answer with an `id` the client no longer waits for (a late answer) is still blamed on no
 * other request, and with two waiting, neither is failed for it until one has its own answer.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";
import { failsAtOnce } from "./fixtures/unreadable-answer.js";

const kept = closedAfterEach();

/** Far past what each test waits: a call that waits it out fails its test. */
const TIMEOUT = 20_000;

const ANSWERS = {
  "a result with id null": '{"jsonrpc":"2.0","id":null,"result":{"content":[{"type":"text","text":"done"}]}}',
  "an error with id null": '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}',
  "an error with no id": '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}',
  "a result with id 1.5": '{"jsonrpc":"2.0","id":1.5,"result":{"content":[{"type":"text","text":"done"}]}}',
};

describe("an answer whose id the SDK cannot match", () => {
  failsAtOnce(kept, ANSWERS, /peek could not be read: its id is not as JSON-RPC says/, TIMEOUT);

  it("a message with id null that is no answer (it has a method) fails no call: the call gets its own answer", async () => {
    const noise = '{"jsonrpc":"2.0","id":null,"method":"notifications/message","params":{"level":"info","data":"x"}}';
    const answer = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"fine"}]}}';
    const { client } = kept(await hunt45({ tools: [tool45("refund", true)], raw: { refund: `${noise}\n${answer}` } }));
    const [refund] = await mcpTools(client, { timeout: TIMEOUT });
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("fine");
  }, 40_000);

  it("with another call waiting beside it: that one gets its own answer, and the other fails once it has", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("peek"), tool45("lookup")], raw: { peek: ANSWERS["an error with no id"] } }));
    const [peek, lookup] = await mcpTools(client, { timeout: TIMEOUT });
    const began = Date.now();
    const [a, b] = await Promise.allSettled([lookup!.runAsTool({}, ctx45().ctx), peek!.runAsTool({}, ctx45().ctx)]);
    expect(a).toEqual({ status: "fulfilled", value: "ran lookup {}" });
    expect(b).toMatchObject({ status: "rejected", reason: { code: "remote-protocol" } });
    expect(Date.now() - began).toBeLessThan(10_000);
  }, 40_000);

  // An answer with a key JSON-RPC does not name ({ jsonrpc, id, result, extra }) fails the SDK's strict reading
  // with the one issue "Unrecognized key: extra", the same issue a notification with such a key gives: it is told
  // to be an answer by its line (kept by adapters/mcp/lines.ts), whose id is a request still waiting (hunt 127).
  it("an answer with an extra top-level key fails its call at once (it waits out the timeout)", async () => {
    const line = '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]},"extra":1}';
    const { client } = kept(await hunt45({ tools: [tool45("peek")], raw: { peek: line } }));
    const [peek] = await mcpTools(client, { timeout: 3_000 });
    const began = Date.now();
    await peek!.runAsTool({}, ctx45().ctx).catch(() => {});
    expect(Date.now() - began).toBeLessThan(2_000);
  }, 30_000);
});
