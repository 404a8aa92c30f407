/**
 * Hunt 133: over Streamable HTTP, an answer to a call with a top-level key JSON-RPC does not name, sent on the
 * server's GET stream (its standalone stream of events, where a server of another make may answer a request)
 * rather than on the POST that carried the call. Hunt 127 read such an answer on the POST's stream only: on the
 * GET stream the SDK's transport dropped it (told to onerror), and the call waited out its whole timeout. Now it
 * is read there as on the POST: its id names the call, which fails at once (`remote-protocol`, naming the key);
 * another call waiting still gets its own answer.
 *
 * The server is hunt 84's (the SDK's server, its GET stream served by the test): a call of "slow" is answered
 * once `release()` is called. Each call's timeout is far past the test's own.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { getStreamServer84 } from "./fixtures/hunt84-http.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** The ids of the requests the SDK's Client waits for. */
const pending = (client: unknown): number[] => [...(client as { _responseHandlers: Map<number, unknown> })._responseHandlers.keys()];

describe("over Streamable HTTP, an answer with a key JSON-RPC does not name, on the GET stream", () => {
  it("fails the call its id names at once; the other call waiting gets its own answer", async () => {
    const s = kept(await getStreamServer84([tool45("slow")]));
    await expect.poll(() => s.open(), { timeout: 10_000 }).toBeDefined();
    const [slow] = await mcpTools(s.client, { timeout: TIMEOUT });
    const first = slow!.runAsTool({}, ctx45().ctx).catch((e: unknown) => e);
    await expect.poll(() => s.calls.length, { timeout: 10_000 }).toBe(1);
    const [id] = pending(s.client);
    const second = slow!.runAsTool({}, { ...(ctx45().ctx as object), idempotencyKey: "k2" } as never);
    await expect.poll(() => s.calls.length, { timeout: 10_000 }).toBe(2);
    await s.say({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] }, extra: 1 });
    expect(await first).toMatchObject({
      code: "remote-protocol",
      message: expect.stringMatching(/slow could not be read: it has the key "extra" beside/),
    });
    s.release();
    expect(await second).toBe("ran slow");
  }, 30_000);

  it("an answer so whose id no call of functai's was sent with fails none (guard)", async () => {
    const s = kept(await getStreamServer84([tool45("slow")]));
    await expect.poll(() => s.open(), { timeout: 10_000 }).toBeDefined();
    const [slow] = await mcpTools(s.client, { timeout: TIMEOUT });
    const call = slow!.runAsTool({}, ctx45().ctx);
    await expect.poll(() => s.calls.length, { timeout: 10_000 }).toBe(1);
    const told = s.errors.length;
    await s.say({ jsonrpc: "2.0", id: 987654, result: { content: [] }, extra: 1 });
    // the client's transport dropped it (told to onerror), then the call is answered
    await expect.poll(() => s.errors.length, { timeout: 10_000 }).toBeGreaterThan(told);
    s.release();
    expect(await call).toBe("ran slow");
  }, 30_000);
});
