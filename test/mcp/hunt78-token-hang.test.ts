/**
 * Hunt 78: an OAuth token endpoint that hangs (rather than failing, hunt 71's case). The MCP server answers a call's
 * POST 401 (its token expired) before its MCP transport sees it; the SDK's transport asks the token endpoint for a
 * new one, which never answers; the call's timeout ends it. It was read as "may have run" (the turn stopped for a
 * person), though the MCP server never took it; and when the token endpoint answered later, the SDK's transport
 * sent the call then, after it was given up: a changing tool ran that no one waited for. Now it is `remote-auth`,
 * saying the tool did not run, and the call given up is never sent.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { wireServer78 } from "./fixtures/hunt78-http.js";

const kept = closedAfterEach();

const server = () => wireServer78([tool45("refund", true)], {}, { auth: true }).then(kept);

describe("the token endpoint hangs while a call is authorized again", () => {
  it("the changing call times out held back: remote-auth, it did not run, and it is not sent when a token comes later", async () => {
    const s = await server();
    // (the listing, before the token expires, is answered at once; the call's timeout is the one that ends it)
    const [refund] = await mcpTools(s.client, { timeout: 2_000 });
    s.expire();
    s.hangTokens();
    const error = await refund!.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, String((error as Error | undefined)?.message)).toMatchObject({ name: "FunctaiError", code: "remote-auth" });
    expect((error as Error).message).toMatch(/refund was not sent.*did not run/);
    expect(s.tokenAsks()).toBeGreaterThan(0);
    // the token endpoint answers now: the call given up must not reach the server
    s.answerTokens();
    await sleep(1_500);
    expect(s.calls).toEqual([]);
    // (guard: the token flow works, and a new call is sent and runs)
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
    expect(s.calls).toEqual(["refund"]);
  }, 60_000);

  it("in a conversation: the model is told, the turn is not stopped for a person", async () => {
    const s = await server();
    const tools = await mcpTools(s.client, { timeout: 2_000 });
    s.expire();
    s.hangTokens();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*refund was not sent/);
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
    s.answerTokens();
    await sleep(1_500);
    expect(s.calls).toEqual([]);
  }, 60_000);

  it("the listing times out held back: remote-auth, not remote-protocol", async () => {
    const s = await server();
    s.expire();
    s.hangTokens();
    const error = await mcpTools(s.client, { timeout: 2_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-auth" });
    expect((error as Error).message).toMatch(/could not be listed: .*not sent/);
  }, 60_000);
});
