/**
 * Hunt 100: a client that connects again as soon as its connection closes (`client.onclose` calls
 * `client.connect` with a new transport: a respawned stdio server, as a supervisor does). The SDK sets the new
 * transport at once, before the calls that were waiting are failed with its own "Connection closed" (-32000):
 * mcpTools read that error as the server's own answer (the client had a transport again), so a changing call
 * sent before its server was SIGKILLed was a tool error the model saw, and the model asked for the refund again
 * (on the new server). Now the call is in doubt: its turn stops for a person, the model asked once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** A transport that starts the same server's script anew (`refund` answering at once), as a supervisor's respawn would. */
function respawned(tools: unknown[]): StdioClientTransport {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt100-"));
  writeFileSync(join(dir, "config.json"), JSON.stringify({ tools, log: join(dir, "log.jsonl") }));
  const main = fileURLToPath(new URL("./fixtures/hunt45-server.ts", import.meta.url));
  return new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", main, join(dir, "config.json")], stderr: "inherit" });
}

describe("a client that connects again in its onclose, its server SIGKILLed mid-call", () => {
  it("a changing call sent before the kill may have run: its turn stops for a person, the model asked once", async () => {
    const tools = [tool45("refund", true)];
    const s = kept(await hunt45({ tools, hang: ["refund"] }));
    const desk = await makeDesk(s.client);
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const sent = chat.send("Refund it.").catch((x: unknown) => x);
    await expect.poll(() => s.logged().length, { timeout: 20_000 }).toBe(1);
    const again = respawned(tools);
    let reconnected: Promise<void> | undefined;
    // (once: the new connection's own close, at the test's end, connects nothing)
    s.client.onclose = () => {
      reconnected ??= s.client.connect(again);
    };
    process.kill(s.transport.pid!, "SIGKILL");
    expect(await sent).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/refund may have run/) });
    expect(lm.requests).toHaveLength(1);
    // the client did connect to the new server at once (the case this is about)
    await reconnected;
    expect(s.client.getServerVersion()).toMatchObject({ name: "hunt45" });
  }, 60_000);
});
