/**
 * Hunt 52: mcpTools told the SDK's `StreamableHTTPError` (an HTTP 4xx answer to the POST that carried a call:
 * the server, or a gateway before it, refused it unread) by its class's name. A bundler that renames classes
 * (a minifier) leaves it another name: every such refusal was read as a call that may have run, and a changing
 * call's turn stopped for a person, "no answer came back", though nothing ran. Now it is told by what the SDK
 * sets on it (its numeric HTTP status as `code`, its message "Streamable HTTP error: Error POSTing to
 * endpoint …"), whatever its class is called.
 */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { httpServer52 } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

describe("the SDK's StreamableHTTPError with its class renamed, as a minifier leaves it", () => {
  const name = Object.getOwnPropertyDescriptor(StreamableHTTPError, "name")!;
  beforeEach(() => void Object.defineProperty(StreamableHTTPError, "name", { value: "e", configurable: true }));
  afterEach(() => void Object.defineProperty(StreamableHTTPError, "name", name));

  it("a changing call refused with 429: a tool error the model sees (remote-rate-limit), not a turn stopped for a person; nothing ran", async () => {
    const s = kept(await httpServer52([tool45("refund", true)]));
    const tools = await mcpTools(s.client);
    s.refuse(429);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*refused the call of refund before running it \(HTTP 429/);
    expect(lm.requests).toHaveLength(2);
    expect(s.calls).toEqual([]);
  }, 40_000);

  for (const [status, code] of [
    [403, "remote-auth"],
    [404, "remote-closed"],
    [400, "remote-closed"],
  ] as const)
    it(`a changing call refused with ${status}: ${code}`, async () => {
      const s = kept(await httpServer52([tool45("refund", true)]));
      const [refund] = await mcpTools(s.client);
      s.refuse(status);
      await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({ name: "FunctaiError", code });
      expect(s.calls).toEqual([]);
    }, 40_000);

  it("a 5xx answer still may have run: a changing call's turn stops for a person", async () => {
    const s = kept(await httpServer52([tool45("refund", true)]));
    const tools = await mcpTools(s.client);
    s.refuse(502);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const chat = desk.conversation("sam", { store: memoryStore(), lm: deskModel({ name: "refund", input: {} }) });
    await expect(chat.send("Refund it.")).rejects.toMatchObject({ code: "turn-unfinished" });
  }, 40_000);

  it("an Error of another make with a 4xx code and no SDK message is not read as a refusal: it may have run", async () => {
    const s = kept(await httpServer52([tool45("refund", true)]));
    const listed = await s.client.listTools();
    class Mangled extends Error {
      constructor(readonly code: number) {
        super("Error POSTing to endpoint (HTTP 404)");
      }
    }
    const client = { listTools: async () => listed, callTool: async () => Promise.reject(new Mangled(404)) };
    const [refund] = await mcpTools(client as never);
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({ name: "NeedsPerson" });
  }, 40_000);
});
