/**
 * Hunt 158: over Streamable HTTP, an answer whose id names the call's request as text ("3" for 3). The SDK's Client
 * matches an answer to its request by the id as a number (so it reads "3" as the answer to 3), and hunt 154 reads an
 * answer's id so (such an answer is not misnamed); but the other checks of the wire (is this event the call's answer?)
 * matched ids strictly, so such an answer was none of the call's:
 *
 * - with a top-level key JSON-RPC does not name, the SDK drops it (hunt 127), and it was not told as the call's answer
 *   that could not be read: the call failed saying the stream "ended before its answer" (an event: one had come), or
 *   threw the SDK's bare ZodError, with no code (a JSON answer);
 * - cut off on the wire past its bound, a changing call's answer was "not known to be its answer" and its turn
 *   stopped for a person (it may have run), where the answer had come: it ran.
 *
 * Now every check reads an answer's id by one rule, the SDK's (message-head.ts, namesRequest).
 * Each call's timeout is far past the test's own, so a call that waits for it fails the test.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { MAX_WIRE_BYTES } from "../../adapters/mcp/wire.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { settled, tool45 } from "./fixtures/hunt45.js";
import { rawAnswerServer } from "./fixtures/raw-answers.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** An answer naming the request's id as text (`"$ID"`: the number in quotes). */
const TEXT_ID_EXTRA = '{"jsonrpc":"2.0","id":"$ID","result":{"content":[{"type":"text","text":"done"}]},"extra":1}';

describe('an answer to a call naming its id as text ("3" for 3), with a key JSON-RPC does not name', () => {
  for (const stream of [false, true])
    it(`(${stream ? "an event of its stream" : "a JSON answer"}) a reading call is remote-protocol at once, naming the key`, async () => {
      const { client } = kept(await rawAnswerServer([tool45("peek")], TEXT_ID_EXTRA, stream));
      const [peek] = await mcpTools(client, { timeout: TIMEOUT });
      const { error } = await settled(peek!);
      expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
      expect(error!.message).toMatch(/^the MCP server's answer to peek could not be read: it has the key "extra" beside/);
    }, 30_000);

  it("a changing call's turn stops for a person at once, saying its answer could not be read", async () => {
    const { client, calls } = kept(await rawAnswerServer([tool45("refund", true)], TEXT_ID_EXTRA, true));
    const [refund] = await mcpTools(client, { timeout: TIMEOUT });
    const { error } = await settled(refund!);
    expect(error).toMatchObject({ name: "NeedsPerson" });
    expect(error!.message).toMatch(/^the MCP tool refund may have run: the MCP server's answer could not be read \(it has the key "extra" beside/);
    expect(calls).toEqual(["refund"]);
  }, 30_000);
});

it('an answer naming its id as text, cut off past the bound on its stream, is known to be the changing call\'s: it ran (not "may have run")', async () => {
  const huge = `{"jsonrpc":"2.0","id":"$ID","result":{"content":[{"type":"text","text":"${"x".repeat(MAX_WIRE_BYTES + 1000)}"}]}}`;
  const { client, calls } = kept(await rawAnswerServer([tool45("refund", true)], huge, true));
  const [refund] = await mcpTools(client, { timeout: TIMEOUT });
  const { error } = await settled(refund!);
  expect(error).toMatchObject({ name: "FunctaiError", code: "tool-failed" });
  expect(error!.message).toMatch(/^the MCP tool refund ran, and its answer was more than 16,000,000 bytes in one message of its answer's stream/);
  expect(calls).toEqual(["refund"]);
}, 30_000);
