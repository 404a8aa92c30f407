/**
 * Hunt 41: a server's reply that is not a JSON-RPC message the SDK can read
 * (its `result` a string, not an object). The SDK's transport drops such a
 * message, reporting it only to `onerror`, so the request it answered waited
 * out the whole timeout (60 s by default) before failing as "timed out". The
 * server answered: a changing call stops its turn for a person at once
 * (it may have run), a reading one is a tool error the model sees at once,
 * and a listing fails `remote-protocol` at once, each saying the server's
 * message could not be read. Which request such an answer was for is not
 * told (its id is in what could not be read): with two calls waiting, the
 * one that gets its own answer is not failed for the other's.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError, memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

/** Far past what each test waits: a call that waits it out fails its test. */
const TIMEOUT = 25_000;

async function server(
  pages: Record<string, unknown> = { "": { tools: [toolNamed("garble", true), toolNamed("garble_peek"), toolNamed("lookup")] } },
) {
  // each answer's `result` is the string, sent as written
  const s = await hunt35(pages, undefined, { garble: "done", garble_peek: "done" });
  return kept(s);
}

describe("a reply the SDK cannot read as a JSON-RPC message", () => {
  it("to a changing call: its turn stops for a person at once (turn-unfinished), saying so; the model is asked once", async () => {
    const { client, logged } = await server();
    const desk = await makeDesk(client, { timeout: TIMEOUT });
    const lm = deskModel({ name: "garble", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const began = Date.now();
    await expect(chat.send("Go.")).rejects.toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/garble may have run: .*could not be read/),
    });
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(lm.requests).toHaveLength(1);
    expect(logged()).toContainEqual({ tool: "garble", phase: "begin" });
    const [turn] = await chat.turns();
    expect(turn!.unfinished.map((t) => t.name)).toEqual(["garble"]);
  }, 40_000);

  it("to a reading call: a tool error the model sees at once, saying the server's message could not be read", async () => {
    const { client } = await server();
    const desk = await makeDesk(client, { timeout: TIMEOUT });
    const began = Date.now();
    expect(await desk("Peek.", { lm: deskModel({ name: "garble_peek", input: {} }) })).toMatch(/^failed: Error: .*could not be read/);
    expect(Date.now() - began).toBeLessThan(10_000);
  }, 40_000);

  it("the connection is still usable after: another call is answered", async () => {
    const { client } = await server();
    const tools = await mcpTools(client, { timeout: TIMEOUT });
    const ctx = () => ({ signal: new AbortController().signal, idempotencyKey: "k1", show: () => {} }) as never;
    const peek = tools.find((t) => t.name === "garble_peek")!;
    await expect(peek.runAsTool({}, ctx())).rejects.toMatchObject({ code: "remote-protocol" });
    expect(await tools.find((t) => t.name === "lookup")!.runAsTool({}, ctx())).toBe("ran lookup {}");
  }, 40_000);

  it("with another call waiting beside it: that call is not failed for it, but gets its own answer; the unreadable one fails when the other is answered", async () => {
    const { client, logged } = await server({ "": { tools: [toolNamed("garble_peek"), toolNamed("slow", true)] } });
    const tools = await mcpTools(client, { timeout: TIMEOUT });
    const ctx = () => ({ signal: new AbortController().signal, idempotencyKey: "k1", show: () => {} }) as never;
    const began = Date.now();
    const slow = tools.find((t) => t.name === "slow")!.runAsTool({}, ctx());
    await expect.poll(() => logged(), { timeout: 10_000 }).toContainEqual({ tool: "slow", phase: "begin" });
    const peek = tools.find((t) => t.name === "garble_peek")!.runAsTool({}, ctx());
    const [a, b] = await Promise.allSettled([slow, peek]);
    // the changing call's answer came: it is its result, not a call in doubt
    expect(a).toEqual({ status: "fulfilled", value: "ran slow {}" });
    expect(b).toMatchObject({ status: "rejected", reason: { code: "remote-protocol", message: expect.stringMatching(/could not be read/) } });
    expect(Date.now() - began).toBeLessThan(15_000);
    expect(logged()).not.toContainEqual({ tool: "slow", phase: "cancelled" });
  }, 40_000);

  it("to a tools/list: mcpTools fails remote-protocol at once", async () => {
    const { client } = await server({ "": "no tools today" });
    const began = Date.now();
    const e = await mcpTools(client, { timeout: TIMEOUT }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "remote-protocol", message: expect.stringMatching(/could not be read/) });
    expect(Date.now() - began).toBeLessThan(10_000);
  }, 40_000);
});
