/**
 * Hunt 52: what reaches a real server from a call that is stopped, and what a call does with progress the
 * server sends before its answer. A stopped turn (its signal aborted) cancels the call on the server
 * (notifications/cancelled: the SDK server's handler sees its signal abort), and the call ends; so does
 * a call past mcpTools' `timeout`. Progress notifications before the answer (by a token the client never gave,
 * or by the request's id) fail no call: the call gets its answer.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45 } from "./fixtures/hunt45.js";
import { hunt52 } from "./fixtures/hunt52.js";

const kept = closedAfterEach();

const tool = (name: string, reads = true) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: reads },
});

/** Waits for `done`, checking every 20 ms, for at most 20 s (generous: the machine is shared). */
async function until(what: string, done: () => boolean): Promise<void> {
  for (const began = Date.now(); !done(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() - began > 20_000) throw new Error(`waited 20 s for ${what}`);
}

describe("a call stopped, and progress before an answer", () => {
  it("a call whose signal aborts is cancelled on the server, and rejects (the engine reads its turn's signal)", async () => {
    const s = kept(await hunt52({ tools: [tool("wait")] }));
    const [wait] = await mcpTools(s.client, { timeout: 60_000 });
    const stop = new AbortController();
    const call = wait!.runAsTool({}, ctx45(stop.signal).ctx).catch((e: unknown) => e);
    await until("the server to get the call", () => s.logged().some((l) => l.method === "tools/call"));
    const reason = new Error("the person stopped it");
    stop.abort(reason);
    expect(await call).toMatchObject({ message: expect.stringContaining("the person stopped it") });
    await until("the server to see the call cancelled", () => s.logged().some((l) => l.method === "cancelled"));
  }, 60_000);

  it("a changing call past the timeout is cancelled on the server too", async () => {
    const s = kept(await hunt52({ tools: [tool("wait", false)] }));
    const [wait] = await mcpTools(s.client, { timeout: 1_500 });
    await expect(wait!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({ name: "NeedsPerson" });
    await until("the server to see the call cancelled", () => s.logged().some((l) => l.method === "cancelled"));
  }, 60_000);

  it("progress notifications before the answer fail no call", async () => {
    const s = kept(await hunt52({ tools: [tool("progress", false)] }));
    const [progress] = await mcpTools(s.client, { timeout: 20_000 });
    expect(await progress!.runAsTool({}, ctx45().ctx)).toBe("ran progress");
  }, 60_000);
});
