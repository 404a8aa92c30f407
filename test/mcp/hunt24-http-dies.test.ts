/**
 * Hunt 24: an MCP server over Streamable HTTP that dies in the middle of a
 * changing call, after it acted. The README: a changing call "whose request
 * went out and was never answered (the connection closed under it, or it
 * timed out) ... may have acted: it is never shown to the model as an error
 * it could answer by calling again. The turn stops, resumable, with the call
 * unfinished". Over HTTP the SDK does not say "connection closed": the POST
 * that carried the call fails with the transport's own error, which
 * mcpTools showed the model as a tool error, and the desk's model asked for
 * the refund again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";

const main = fileURLToPath(new URL("./fixtures/hunt24-http-orders.ts", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
});

/** The HTTP orders server in a child process, and a client connected to it. */
async function httpOrders(mode: "json" | "sse") {
  const ledger = join(mkdtempSync(join(tmpdir(), "hunt24-")), "ledger");
  const child = spawn(process.execPath, ["--import", "tsx", main, ledger, mode], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      const found = /port (\d+)/.exec(String(chunk));
      if (found) resolve(Number(found[1]));
    });
    child.on("exit", (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
  const client = new Client({ name: "hunt24", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const lines = () => (existsSync(ledger) ? readFileSync(ledger, "utf8").split("\n").filter(Boolean) : []);
  return { client, lines };
}

describe.each(["json", "sse"] as const)("a changing call over Streamable HTTP (%s answers) whose server dies after acting", (mode) => {
  it("stops the turn for a person (turn-unfinished), the refund unfinished; the model never sees an error to retry", async () => {
    const { client, lines } = await httpOrders(mode);
    const desk = await makeDesk(client);
    const lm = deskModel({ name: "refund", input: { order_id: "HANG", amount: 39 } });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    const outcome = await chat.send("Order HANG never arrived.").then(
      (reply) => ({ reply }),
      (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
    );
    expect(outcome).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/refund may have run/) });
    expect(lm.requests).toHaveLength(1);
    expect(lines()).toEqual(["refund HANG 39.00"]);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((t) => t.name)).toEqual(["refund"]);
  }, 90_000);

  it("a reading call whose server dies is a tool error the model sees; the turn ends done", async () => {
    const { client } = await httpOrders(mode);
    const desk = await makeDesk(client);
    const lm = deskModel({ name: "carrier_status", input: { order_id: "A-1042" } });
    expect(await desk("Where is A-1042?", { lm })).toMatch(/^failed: Error: /);
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "carrier_status", isError: true });
  }, 90_000);
});
