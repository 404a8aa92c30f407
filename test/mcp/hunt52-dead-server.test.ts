/**
 * Hunt 52: a server over stdio that died (its process killed) before a call. The SDK's client, its connection
 * closed, fails every later request with a plain `Error("Not connected")`, sent nowhere: mcpTools threw it as
 * it was, with no functai code and not saying which server or what to do. Now it is `remote-closed`, naming the
 * server (as it named itself when it connected) and saying to connect the client again; a tool error the model
 * sees, the turn going on — a changing tool's call included: it was never sent, so it did not run (no person is
 * asked what it did). A changing call sent before the server died may have run: its turn stops for a person.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** Waits for `done`, checking every 20 ms, for at most 20 s (generous: the machine is shared). */
async function until(what: string, done: () => boolean): Promise<void> {
  for (const began = Date.now(); !done(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() - began > 20_000) throw new Error(`waited 20 s for ${what}`);
}

/** The server's process killed, and its client told its connection closed. */
async function killed(s: Awaited<ReturnType<typeof hunt45>>): Promise<void> {
  let closed = false;
  const before = s.client.onclose;
  s.client.onclose = () => {
    closed = true;
    before?.();
  };
  process.kill(s.transport.pid!, "SIGKILL");
  await until("the connection to close", () => closed);
}

describe("a server over stdio that died before the call", () => {
  it("a changing tool's call, never sent: a tool error the model sees (remote-closed, naming the server), not a turn stopped for a person", async () => {
    const s = kept(await hunt45({ tools: [tool45("refund", true)] }));
    const desk = await makeDesk(s.client);
    await killed(s);
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const answer = await chat.send("Refund it.");
    expect(answer).toMatch(
      /^failed: Error: Not connected to the MCP server "hunt45": .*nothing was sent; connect the client again .*\(the MCP tool refund was not called\)/,
    );
    expect(lm.requests).toHaveLength(2);
  }, 60_000);

  it("a reading tool's call: remote-closed, naming the server and saying to connect it again", async () => {
    const s = kept(await hunt45({ tools: [tool45("peek")] }));
    const [peek] = await mcpTools(s.client);
    await killed(s);
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      name: "FunctaiError",
      code: "remote-closed",
      message: expect.stringMatching(
        /^Not connected to the MCP server "hunt45": .*client\.connect\(transport\).*\(the MCP tool peek was not called\)/,
      ),
    });
  }, 60_000);

  it("listing its tools: remote-closed, naming the server", async () => {
    const s = kept(await hunt45({ tools: [tool45("peek")] }));
    await killed(s);
    await expect(mcpTools(s.client)).rejects.toMatchObject({
      code: "remote-closed",
      message: expect.stringMatching(/^Not connected to the MCP server "hunt45": .*\(the MCP server's tools could not be listed\)/),
    });
  }, 60_000);

  it("a changing call sent before the server died may have run: its turn stops for a person", async () => {
    const s = kept(await hunt45({ tools: [tool45("refund", true)], hang: ["refund"] }));
    const desk = await makeDesk(s.client);
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const sent = chat.send("Refund it.").catch((x: unknown) => x);
    await until("the server to get the call", () => s.logged().length === 1);
    await killed(s);
    expect(await sent).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/refund may have run/) });
    expect(lm.requests).toHaveLength(1);
  }, 60_000);
});
