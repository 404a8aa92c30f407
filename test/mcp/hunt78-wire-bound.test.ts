/**
 * Hunt 78: over Streamable HTTP the SDK reads a whole answer (a JSON body, or one event of a stream) before functai
 * sees it, and hunt 71 bounded a result at 1,000,000 characters only once read: a server answering with tens or
 * hundreds of MB had all of it read into memory first. Now the transport's fetch stops reading an answer past
 * 16,000,000 bytes (a JSON answer in all, a stream each event: a long stream of small events is read on), and the
 * call is a tool error the model sees (`tool-failed`), a changing tool's saying it ran.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { wireServer78 } from "./fixtures/hunt78-http.js";

const kept = closedAfterEach();

/** Three times the bound: what the server would write whole to a client that reads it all. */
const HUGE = 48_000_000;
/**
 * What a client that stops reading at the bound (16,000,000 bytes) lets the server write: the bound and the
 * sockets' buffers on both sides (a few MB), far under HUGE. Generous: it is the bytes, not the time, asserted.
 */
const TAKEN_AT_MOST = 36_000_000;

const server = () =>
  wireServer78([tool45("peek"), tool45("export", true), tool45("chatty")], {
    peek: { kind: "json", bytes: HUGE },
    export: { kind: "sse", bytes: HUGE },
    chatty: { kind: "chatty", events: 24, bytes: 1_000_000 },
  }).then(kept);

describe("an answer past the bound on the wire (Streamable HTTP)", () => {
  it("a JSON answer of 48 MB to a reading tool: reading stops at the bound, a tool error saying so", async () => {
    const s = await server();
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    const peek = tools.find((t) => t.name === "peek")!;
    const error = await peek.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "FunctaiError", code: "tool-failed" });
    expect((error as Error).message).toMatch(/peek's answer was more than 16,000,000 bytes/);
    expect(s.wire.peek!.finished).toBe(false);
    await expect.poll(() => s.wire.peek!.cut, { timeout: 10_000 }).toBe(true);
    expect(s.wire.peek!.written).toBeLessThan(TAKEN_AT_MOST);
  }, 120_000);

  it("one event of 48 MB in a changing tool's stream: the model is told it ran, nothing of it kept, the stream cut", async () => {
    const s = await server();
    const desk = await makeDesk(s.client, { timeout: 60_000, include: ["export"] });
    const lm = deskModel({ name: "export", input: {} });
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, lm });
    const answer = await chat.send("Export it.");
    expect(answer).toMatch(/^failed: .*export ran.*more than 16,000,000 bytes.*do not call it again/);
    expect(lm.requests).toHaveLength(2);
    expect(JSON.stringify(await store.read("sam")).length).toBeLessThan(50_000);
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
    expect(s.calls).toEqual(["export"]);
    await expect.poll(() => s.wire.export!.cut, { timeout: 10_000 }).toBe(true);
    expect(s.wire.export!.written).toBeLessThan(TAKEN_AT_MOST);
  }, 120_000);

  it("a stream of 24 MB in events of 1 MB each (each under the bound): read whole, the call answered (guard: streams are bounded by event)", async () => {
    const s = await server();
    const tools = await mcpTools(s.client, { timeout: 60_000 });
    const chatty = tools.find((t) => t.name === "chatty")!;
    expect(await chatty.runAsTool({}, ctx45().ctx)).toBe("chatty done");
    expect(s.wire.chatty!.finished).toBe(true);
  }, 120_000);
});
