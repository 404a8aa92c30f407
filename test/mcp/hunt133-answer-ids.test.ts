/**
 * Hunt 133: an answer with a top-level key JSON-RPC does not name (hunt 127) fails the call whose id it carries.
 * Hunt 127 failed a call for it only once the call was the one left waiting of those waiting when it came: with
 * two calls waiting, the answer to one waited for the other's answer (forever, for a call that never ends), two
 * such answers failed neither (each waited out its timeout), and one to a request the caller made on the client
 * itself was blamed on functai's call waiting beside it (a changing call's turn stopped for a person, its own
 * answer still to come). Now the answer's id names its call: that call fails at once, and no other.
 *
 * Each call's timeout is far past the test's own: a call that waits it out fails its test.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;
const answer = (key: string) => `{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]},"${key}":1}`;

describe("an answer with a key JSON-RPC does not name, among several calls waiting", () => {
  it("two calls, each answered so: each fails at once, naming its own answer's key", async () => {
    const raw = { peek: answer("extra"), poke: answer("trace") };
    const { client } = kept(await hunt45({ tools: [tool45("peek"), tool45("poke")], raw }));
    const [peek, poke] = await mcpTools(client, { timeout: TIMEOUT });
    const [a, b] = await Promise.allSettled([peek!.runAsTool({}, ctx45().ctx), poke!.runAsTool({}, ctx45().ctx)]);
    expect(a).toMatchObject({
      status: "rejected",
      reason: { code: "remote-protocol", message: expect.stringMatching(/peek could not be read: .*"extra"/) },
    });
    expect(b).toMatchObject({
      status: "rejected",
      reason: { code: "remote-protocol", message: expect.stringMatching(/poke could not be read: .*"trace"/) },
    });
  }, 30_000);

  it("its call fails at once while another call still runs, and that call is not failed for it", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("peek"), tool45("lookup")], raw: { peek: answer("extra") }, hang: ["lookup"] }));
    const [peek, lookup] = await mcpTools(client, { timeout: TIMEOUT });
    const stop = new AbortController();
    const waiting = lookup!.runAsTool({}, ctx45(stop.signal).ctx).catch((e: unknown) => e);
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "remote-protocol",
      message: expect.stringMatching(/peek could not be read: it has the key "extra"/),
    });
    // lookup still waits for its own answer: it ends only when its turn stops
    stop.abort(new Error("stopped by the test"));
    expect(await waiting).toMatchObject({ message: expect.not.stringMatching(/could not be read/) });
  }, 30_000);

  it("an answer so to a request the caller made on the client itself fails no call of functai's", async () => {
    const { client } = kept(await hunt45({ tools: [tool45("peek"), tool45("refund", true)], raw: { peek: answer("extra") }, hang: ["refund"] }));
    const [, refund] = await mcpTools(client, { timeout: TIMEOUT });
    const stop = new AbortController();
    const waiting = refund!.runAsTool({}, ctx45(stop.signal).ctx).catch((e: unknown) => e);
    // told once the client's transport dropped the answer to the caller's own call
    const dropped = new Promise<void>((resolve) => {
      const before = client.onerror;
      client.onerror = (e) => {
        before?.(e);
        if (/extra/.test(String((e as Error).message))) resolve();
      };
    });
    const own = new AbortController();
    const mine = client.callTool({ name: "peek", arguments: {} }, undefined, { signal: own.signal, timeout: TIMEOUT }).catch(() => "given up");
    await dropped;
    stop.abort(new Error("stopped by the test"));
    own.abort();
    expect(await waiting).toMatchObject({ message: expect.stringMatching(/stopped by the test/) });
    expect(await mine).toBe("given up");
  }, 30_000);
});
