/**
 * functai/mcp across real processes: the orders MCP server runs as a child
 * process over stdio; the desk runs in other child processes on one file
 * store. A destructive call waits and is approved from another process (it
 * runs once); a process killed inside a destructive call leaves it
 * unfinished, and it is never sent to the server again on resume.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { isFunctaiError } from "../../src/index.js";
import { bundled, removeBundles, runChild } from "../durable/fixtures/spawn.js";
import { deskModel, makeDesk, stdioClient } from "./fixtures/desk.js";

const here = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
afterAll(removeBundles);

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

async function world() {
  const dir = mkdtempSync(join(tmpdir(), "functai-mcp-"));
  const [server, desk] = await Promise.all([bundled(here("orders-main.ts")), bundled(here("desk-child.ts"))]);
  const ledger = join(dir, "ledger.txt");
  const config = (action: string, extra: object = {}) => JSON.stringify({ action, dir: join(dir, "store"), conversation: "sam", ledger, server, ...extra });
  return { dir, server, desk, ledger, config };
}

const lastLine = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

describe("MCP tools across processes (the server over stdio)", () => {
  it("a destructive MCP call waits in one process, is approved in another, and runs once", async () => {
    const w = await world();
    const sent = await runChild(w.desk, [w.config("send")]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(lastLine(sent.stdout)).toEqual({ waiting: ["refund"], state: "waiting" });
    expect(lines(w.ledger)).toEqual([]);

    const approved = await runChild(w.desk, [w.config("approve")]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(lastLine(approved.stdout)).toEqual({ ok: "refunded 39.00 for A-1042" });
    expect(lines(w.ledger)).toEqual(["refund A-1042 39.00"]);
  }, 60_000);

  it("a process killed inside a destructive MCP call leaves it unfinished; resumed, it is never sent again", async () => {
    const w = await world();
    const child = spawn(process.execPath, [w.desk, w.config("crash")], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const ended = new Promise<NodeJS.Signals | null>((r) => child.on("close", (_code, signal) => r(signal)));
    // the refund has reached the server (it wrote its ledger line, and hangs): kill the desk's process now
    while (lines(w.ledger).length === 0) {
      if (child.exitCode !== null) throw new Error(`the child ended before the refund ran: ${stderr}`);
      await sleep(20);
    }
    child.kill("SIGKILL");
    expect(await ended).toBe("SIGKILL");

    const { client } = await stdioClient(w.server, w.ledger);
    try {
      const desk = await makeDesk(client);
      const chat = desk.conversation("sam", { store: fsStore(join(w.dir, "store")), lm: deskModel({ name: "refund", input: { order_id: "HANG", amount: 5 } }) });
      let turn = (await chat.turns()).at(-1)!;
      for (let i = 0; turn.state === "running" && i < 200; i++) {
        await sleep(50);
        await turn.refresh();
      }
      expect(turn.state).toBe("interrupted");
      expect(turn.unfinished).toMatchObject([{ invocation: 1, name: "refund", input: { order_id: "HANG", amount: 5 } }]);
      const refused = await turn.resume().catch((e: unknown) => e);
      expect(isFunctaiError(refused, "turn-unfinished")).toBe(true);
      turn = (await chat.turns()).at(-1)!;
      expect(await turn.resume({ results: { 1: "refunded 5.00 for HANG" } })).toBe("ok: refunded 5.00 for HANG");
      expect(lines(w.ledger)).toEqual(["refund HANG 5.00"]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
