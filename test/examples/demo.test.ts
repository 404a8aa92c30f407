/**
 * `npm start` (examples/node/demo.ts) as a user runs it on a fresh clone:
 * no API key, stdin not a terminal (so the second process answers by itself).
 */
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const stores: string[] = [];

/** Runs `npm start` with no model keys in the environment; resolves to its exit code and output. */
function npmStart(extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...extra };
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "FUNCTAI_MODEL"]) delete env[key];
  return new Promise((done, fail) => {
    const proc = spawn("npm", ["start", "--silent"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
    proc.stderr.on("data", (b: Buffer) => (out += b.toString()));
    proc.on("error", fail);
    proc.on("exit", (code) => {
      const store = /^store: (\S+)/m.exec(out)?.[1];
      if (store) stores.push(isAbsolute(store) ? store : join(root, store));
      done({ code, out });
    });
  });
}

afterAll(async () => {
  for (const dir of stores) await rm(dir, { recursive: true, force: true });
});

describe("npm start (examples/node/demo.ts)", () => {
  it("tells the spec's stories on the scripted model, exits 0, and runs again in a fresh folder", async () => {
    const first = await npmStart();
    expect(first.code, first.out).toBe(0);
    const out = first.out;
    expect(out).toMatch(/^model: scripted/m);

    // 1. a first tool, streamed, then phistory()
    expect(out).toMatch(/tool_call\s+lookup_order\(\{"order_id":"A-1042"\}\)/);
    expect(out).toMatch(/tool_result\s+lookup_order → \{"item":"kettle"/);
    expect(out).toMatch(/text\s+Your order A-1042, a kettle, is stuck at carrier\./);
    expect(out).toMatch(/done\s+tokens in \d+, out \d+/);
    expect(out).toContain("answer → scripted");
    expect(out).toContain("Tool message:");

    // 2. the refund desk
    expect(out).toContain("asked: refund {\"order_id\":\"A-1042\",\"amount\":39}");
    expect(out).toContain("Refunds over 20.00 need a manager.");
    expect(out).toContain("ApprovalError approval-required · desk/refund: this tool call needs a person's answer");
    expect(out.match(/REFUNDS: \[\]/g)).toHaveLength(2);
    expect(out).toContain("send threw Waiting (turn-waiting): the turn is waiting");
    expect(out).toContain("another send is refused: conversation-busy");
    expect(out).toMatch(/\[process \d+\]\s+stdin is not a terminal: answering yes/);
    expect(out).toMatch(/\[process \d+\]\s+Your kettle \(order A-1042\) was lost by the carrier: refunded 39\.00 for A-1042/);
    expect(out).toMatch(/the model was asked 1× \(the replies before the wait came from the journal\)/);
    expect(out).toContain("back here: the turn is done");
    expect(out).toContain("across both processes: find_order ran 1× (before the wait), refund ran 1×");

    // 3. when the process dies
    expect(out).toContain("the child ended: killed by SIGKILL");
    expect(out).toMatch(/after waiting out the lease \(\d+ ms\): interrupted/);
    expect(out).toContain('turn.unfinished: [{"invocation":1,"name":"send_email"');
    expect(out).toContain("turn.resume() refuses: turn-unfinished · turn ");
    expect(out).toContain("send_email (invocation 1) started and may have run");
    expect(out).toContain("answer: The email to sam@example.com went out (send_email said: sent)");
    expect(out).toContain("exactly one email was sent");

    // 4. MCP tools and OpenTelemetry: the server a child process over stdio, the spans a tree
    expect(out).toContain("the server's tools: find_order (readOnlyHint: reads), refund (no readOnlyHint: changes)");
    expect(out).toContain('asked: refund {"order_id":"A-1042","amount":39} → yes');
    expect(out).not.toContain("asked: find_order");
    expect(out).toContain("answer: Your kettle (order A-1042) was lost by the carrier: refunded 39.00 for A-1042.");
    expect(out).toMatch(/the server's ledger: \["refund A-1042 39\.00 \(MCP server, process \d+\)"\]/);
    expect(out).toMatch(/^ {4}invoke_agent desk {2}tokens in \d+, out \d+; done$/m);
    expect(out).toMatch(/^ {4}├─ execute_tool find_order {2}reads, #1, not-asked$/m);
    expect(out).toMatch(/^ {4}├─ execute_tool refund {2}changes, #2, approved$/m);
    expect(out).toMatch(/^ {4}└─ chat scripted {2}tokens in \d+, out \d+; finish stop$/m);
    expect(out.match(/^ {4}[├└]─ chat scripted/gm)).toHaveLength(3);
    expect(out).toContain("All four stories ran");

    // twice in a row: a fresh store folder each run
    const second = await npmStart();
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain("exactly one email was sent");
    expect(stores).toHaveLength(2);
    expect(stores[0]).not.toBe(stores[1]);
  });

  it("a no from the second process is kept: refund does not run", async () => {
    const { code, out } = await npmStart({ FUNCTAI_DEMO_ANSWER: "no" });
    expect(code, out).toBe(0);
    expect(out).toMatch(/\[process \d+\]\s+stdin is not a terminal: answering no/);
    expect(out).toMatch(/\[process \d+\]\s+I'm sorry, your kettle \(order A-1042\) was lost by the carrier, but I could not refund it\. Not today/);
    expect(out).toContain("across both processes: find_order ran 1× (before the wait), refund ran 0×");
  });
});
