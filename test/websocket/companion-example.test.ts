/**
 * examples/node/companion as a user runs it: `serve.ts --demo` in one
 * process (a folder store, the refund desk on the scripted model, one turn
 * waiting), the terminal companion with `--yes` in another.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGTERM");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(file: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "FUNCTAI_MODEL", "FUNCTAI_KEY"]) delete env[key];
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=functai-source", join("examples/node/companion", file), ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", r));
  return { out: () => out, exited };
}

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("examples/node/companion", () => {
  it("serve.ts --demo, then the companion with --yes approves the refund; the server ran it once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-companion-"));
    dirs.push(dir);
    const server = run("serve.ts", [join(dir, "store"), "--port", "0", "--demo"]);
    await until(() => / waits: refund/.test(server.out()));
    const url = /serving the refund desk at (ws:\/\/\S+)/.exec(server.out())![1]!;

    const first = run("index.ts", [url, "--yes", "--by", "maria"]);
    expect(await first.exited, first.out()).toBe(0);
    expect(first.out()).toContain("1 turn(s) wait for a person");
    expect(first.out()).toContain('desk/refund wants refund {"order_id":"A-1042","amount":39}');
    expect(first.out()).toContain("answer: Your kettle (order A-1042) was lost by the carrier: refunded 39.00 for A-1042.");
    await until(() => /refund ran in the server/.test(server.out()));

    const second = run("index.ts", [url, "--yes"]);
    expect(await second.exited, second.out()).toBe(0);
    expect(second.out()).toContain("nothing waits for a person");
    expect(server.out().match(/refund ran in the server/g)).toHaveLength(1);
  });
});
