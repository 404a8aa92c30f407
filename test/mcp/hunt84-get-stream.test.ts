/**
 * Hunt 84: hunt 78 bounded what is read of an answer on the wire (16,000,000 bytes: a JSON answer in all, a stream
 * each event) by wrapping the fetch of the client's transport when mcpTools first uses it. But the client is
 * connected before it is handed to mcpTools, and connecting opens the GET stream (the server's own messages) with
 * the fetch as it was: that stream, open for the client's whole life, was never bounded. A server pushing one
 * event of 48 MB on it had all of it read into memory. Now mcpTools reopens the GET stream through the bounded
 * fetch before it lists the tools, and the server's messages on the new stream are still heard (a word that the
 * tools changed included).
 */
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { getStreamServer84 } from "./fixtures/hunt84-http.js";

const kept = closedAfterEach();

/** Three times the bound: what the server would write whole to a client that reads it all. */
const HUGE = 48_000_000;
/**
 * What a client that stops reading at the bound (16,000,000 bytes) lets the server write: the bound and the
 * sockets' buffers on both sides (a few MB), far under HUGE. Generous: it is the bytes, not the time, asserted.
 */
const TAKEN_AT_MOST = 36_000_000;

const server = () => getStreamServer84([tool45("peek"), tool45("refund", true)]).then(kept);

describe("the GET stream of a client connected before mcpTools took it (Streamable HTTP)", () => {
  it("one event of 48 MB pushed on it after mcpTools: reading stops at the bound", async () => {
    const s = await server();
    // the client opened its GET stream when it connected
    await expect.poll(() => s.open(), { timeout: 10_000 }).toBeDefined();
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    expect(tools.map((t) => t.name)).toEqual(["peek", "refund"]);
    const stream = await s.push(HUGE);
    expect(stream.finished).toBe(false);
    expect(stream.cut).toBe(true);
    expect(stream.written).toBeLessThan(TAKEN_AT_MOST);
    // the client is still usable: a call is answered
    expect(await tools[0]!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
  }, 120_000);

  it("a word that the tools changed, said on the GET stream once mcpTools took them, is still heard (guard)", async () => {
    const s = await server();
    await expect.poll(() => s.open(), { timeout: 10_000 }).toBeDefined();
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    // the server now says peek changes things, and says so on its GET stream
    s.list([tool45("peek", true), tool45("refund", true)]);
    let heard = 0;
    s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard++);
    await s.say({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await expect.poll(() => heard, { timeout: 10_000 }).toBe(1);
    const peek = tools.find((t) => t.name === "peek")!;
    await expect(peek.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringMatching(/now says peek changes/),
    });
    expect(s.calls).toEqual([]);
    // one GET stream is open, not two fighting over the session, and the client was told of no error (the stream
    // functai cut to reopen it is no error of the server's)
    expect(s.open()).toBeDefined();
    expect(s.errors).toEqual([]);
  }, 120_000);

  it("a call of the caller's own in flight when mcpTools takes the client is answered, not cut; the stream is reopened after it (guard)", async () => {
    const s = await server();
    await expect.poll(() => s.open(), { timeout: 10_000 }).toBeDefined();
    const slow = s.client.callTool({ name: "slow", arguments: {} });
    await expect.poll(() => s.calls, { timeout: 10_000 }).toEqual(["slow"]);
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    expect(tools.map((t) => t.name)).toEqual(["peek", "refund"]);
    s.release();
    expect(await slow).toMatchObject({ content: [{ type: "text", text: "ran slow" }] });
    // reopened once the call was answered: a huge event on it is cut
    await expect.poll(() => s.gets(), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => s.open(), { timeout: 10_000 }).toBeDefined();
    const stream = await s.push(HUGE);
    expect(stream.cut).toBe(true);
    expect(stream.written).toBeLessThan(TAKEN_AT_MOST);
  }, 120_000);

  it("a server with no GET stream (405): mcpTools lists its tools and a call is answered, no error told (guard)", async () => {
    const s = await getStreamServer84([tool45("peek")], { noGet: true }).then(kept);
    await expect.poll(() => s.gets(), { timeout: 10_000 }).toBe(1);
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    expect(await tools[0]!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
    expect(s.errors).toEqual([]);
  }, 120_000);
});
