/**
 * examples/node/companion as a person uses it: one Ctrl-C ends `--watch`
 * (as a SIGINT signal, and as the ^C a terminal sends, through util-linux
 * `script`'s pseudo-terminal), and a denial is shown as a denial, not as a
 * tool call that ran.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, serve, type WebSocketServerHandle } from "../../adapters/websocket/index.js";
import { ai, memoryStore, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const node = (file: string, args: string[]): string[] => ["--import", "tsx", "--conditions=functai-source", join("examples/node/companion", file), ...args];

/** Starts a process in the repository with no model keys; `tty` runs it in a pseudo-terminal (`script`). */
function start(file: string, args: string[], tty = false) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "FUNCTAI_MODEL", "FUNCTAI_KEY"]) delete env[key];
  const command = tty ? "script" : process.execPath;
  const argv = tty ? ["-qefc", [process.execPath, ...node(file, args)].map((a) => `'${a}'`).join(" "), "/dev/null"] : node(file, args);
  const child = spawn(command, argv, { cwd: root, env, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
  return { child, out: () => out, exited, type: (text: string) => child.stdin!.write(text) };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 45_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** serve.ts --demo on a fresh folder and a free port: one turn waits for the refund's approval. */
async function server() {
  const dir = mkdtempSync(join(tmpdir(), "functai-companion-"));
  dirs.push(dir);
  const s = start("serve.ts", [join(dir, "store"), "--port", "0", "--demo"]);
  await until(() => / waits: refund/.test(s.out()), "the demo turn to wait");
  return { ...s, url: /serving the refund desk at (ws:\/\/\S+)/.exec(s.out())![1]! };
}

const haveScript = existsSync("/usr/bin/script");
// the terminal tests need util-linux `script`: a machine without it skips them, CI never does
if (!haveScript) {
  if (process.env.CI) throw new Error("CI is set and there is no /usr/bin/script: the Ctrl-C and prompt tests must run (apt-get install -y bsdutils).");
  console.warn("[functai] no /usr/bin/script: the terminal tests of test/examples/companion.test.ts are skipped (CI never skips them).");
}

describe("examples/node/companion: Ctrl-C and denials", () => {
  it("one SIGINT ends --watch, with exit code 0", async () => {
    const { url } = await server();
    const companion = start("index.ts", [url, "--yes", "--watch"]);
    await until(() => companion.out().includes("watching (Ctrl-C to stop)"), "the companion to watch");
    companion.child.kill("SIGINT");
    expect(await companion.exited, companion.out()).toEqual({ code: 0, signal: null });
    expect(companion.out()).toContain("stopped");
  });

  it.skipIf(!haveScript)("at a terminal, one Ctrl-C ends --watch", async () => {
    const { url } = await server();
    const companion = start("index.ts", [url, "--watch", "--by", "maria"], true);
    await until(() => companion.out().includes("allow? [y/n/s(kip)]"), "the prompt");
    companion.type("s\r");
    await until(() => companion.out().includes("watching (Ctrl-C to stop)"), "the companion to watch");
    companion.type("\x03");
    expect(await companion.exited, companion.out()).toEqual({ code: 0, signal: null });
    expect(companion.out()).toContain("stopped");
  });

  it.skipIf(!haveScript)("a denial is shown as a denial: the refund did not run, and it is not printed as a call", async () => {
    const s = await server();
    const companion = start("index.ts", [s.url, "--by", "maria"], true);
    await until(() => companion.out().includes("allow? [y/n/s(kip)]"), "the prompt");
    companion.type("n\r");
    await until(() => companion.out().includes("reason (the model sees it)"), "the reason prompt");
    companion.type("not today\r");
    expect(await companion.exited, companion.out()).toEqual({ code: 0, signal: null });
    const out = companion.out();
    expect(out).toContain("refund denied by maria (not today): it did not run");
    expect(out).toContain("answer: I'm sorry, your kettle (order A-1042) was lost by the carrier, and I could not refund it here.");
    expect(out).not.toMatch(/^\s+refund \{/m);
    expect(out).not.toContain("The person did not allow this call");
    expect(s.out()).not.toContain("refund ran in the server");
  });
});

describe("examples/node/companion: a server that is down, a wrong key, the end of input", () => {
  it("a server that is down: one line that says so, exit code 1, no stack trace", async () => {
    const companion = start("index.ts", ["ws://127.0.0.1:1", "--yes"]);
    expect(await companion.exited, companion.out()).toEqual({ code: 1, signal: null });
    expect(companion.out()).toMatch(/^cannot connect to ws:\/\/127\.0\.0\.1:1: .*\(remote-closed\)$/m);
    expect(companion.out()).not.toMatch(/^\s+at /m);
  });

  it("a wrong key: one line that says so (remote-auth), exit code 1, no stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-companion-"));
    dirs.push(dir);
    const s = start("serve.ts", [join(dir, "store"), "--port", "0", "--key", "right"]);
    await until(() => /serving the refund desk at ws:/.test(s.out()), "the server");
    const url = /serving the refund desk at (ws:\/\/\S+)/.exec(s.out())![1]!;
    const companion = start("index.ts", [url, "--key", "wrong", "--yes"]);
    expect(await companion.exited, companion.out()).toEqual({ code: 1, signal: null });
    expect(companion.out()).toMatch(/^cannot connect to ws:\/\/\S+: wrong key \(remote-auth\)$/m);
    expect(companion.out()).not.toMatch(/^\s+at /m);
  });

  it("no URL: the usage, exit code 2, no stack trace", async () => {
    const companion = start("index.ts", ["--yes"]);
    expect(await companion.exited, companion.out()).toEqual({ code: 2, signal: null });
    expect(companion.out()).toMatch(/^usage: index\.ts <ws:\/\/host:port>/m);
    expect(companion.out()).not.toMatch(/^\s+at /m);
  });

  it.skipIf(!haveScript)("Ctrl-D at the prompt answers nothing: the turn still waits, and the companion ends with exit code 0", async () => {
    const s = await server();
    const companion = start("index.ts", [s.url, "--watch"], true);
    await until(() => companion.out().includes("allow? [y/n/s(kip)]"), "the prompt");
    companion.type("\x04");
    expect(await companion.exited, companion.out()).toEqual({ code: 0, signal: null });
    expect(companion.out()).not.toMatch(/AbortError|node:internal/);
    expect(companion.out()).toContain("no more input: what was not answered still waits");
    const check = start("index.ts", [s.url]);
    expect(await check.exited, check.out()).toEqual({ code: 0, signal: null });
    expect(check.out()).toContain("1 turn(s) wait for a person");
  });
});

describe("examples/node/companion --yes --watch: a turn that waits again", () => {
  let handle: WebSocketServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  /** A program that pays twice, one changing call after the other: its turn waits, is approved, and waits again. */
  async function twice() {
    const PAID: number[] = [];
    const pay = tool("pay", { description: "Pay an amount.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      PAID.push(amount);
      return `paid ${amount}`;
    });
    const payer = ai("payer", { description: "Pay 1, then 2.", input: { message: z.string() }, tools: [pay] });
    const brain = (req: LMRequest) => {
      const paid = req.messages.filter((m) => m.role === "tool").length;
      return paid < 2 ? { toolCalls: [{ name: "pay", input: { amount: paid + 1 } }] } : "<result>\npaid twice\n</result>";
    };
    const store = memoryStore();
    const served = payer.using({ lm: scripted(Array.from({ length: 20 }, () => brain)) });
    await served.conversation("bo", { store, approve: "changes" }).send("Pay.").catch(() => undefined);
    handle = await serve({ store, programs: [served], port: 0 });
    return { PAID, url: handle.url };
  }

  async function nothingWaits(url: string): Promise<void> {
    const app = await connect(url);
    expect(await app.waiting()).toEqual([]);
    await app.close();
  }

  it("--watch: each approval of a turn is asked about, not only the turn's first", async () => {
    const { PAID, url } = await twice();
    const companion = start("index.ts", [url, "--yes", "--watch"]);
    await until(() => companion.out().includes("answer: paid twice"), "both payments to be approved").catch(() => undefined);
    expect(companion.out()).toContain("answer: paid twice");
    expect(PAID).toEqual([1, 2]);
    expect(companion.out().match(/payer\/pay wants pay/g)).toHaveLength(2);
    companion.child.kill("SIGINT");
    expect(await companion.exited, companion.out()).toEqual({ code: 0, signal: null });
    await nothingWaits(url);
  });

  it("without --watch: the list is handled with what waits again, then the companion exits 0", async () => {
    const { PAID, url } = await twice();
    const companion = start("index.ts", [url, "--yes"]);
    expect(await companion.exited, companion.out()).toEqual({ code: 0, signal: null });
    expect(companion.out()).toContain("answer: paid twice");
    expect(PAID).toEqual([1, 2]);
    await nothingWaits(url);
  });
});

describe("examples/node/companion/serve.ts: a server that cannot start", () => {
  it("says why in one line (a port in use, a port that is no number, another host without a key), exit code 1, no stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-companion-"));
    dirs.push(dir);
    const first = start("serve.ts", [join(dir, "a"), "--port", "0"]);
    await until(() => /serving the refund desk at ws:/.test(first.out()), "the first server");
    const port = /serving the refund desk at ws:\/\/127\.0\.0\.1:(\d+)/.exec(first.out())![1]!;
    for (const [args, said] of [
      [["--port", port], /^cannot serve: .*EADDRINUSE.* \(settings-invalid\)$/m],
      [["--port", "abc"], /^--port must be a port number \(0 to 65535\), not "abc"$/m],
      [["--port", "0", "--host", "0.0.0.0"], /^cannot serve: .* \(remote-auth\)$/m],
    ] as const) {
      const s = start("serve.ts", [join(dir, "b"), ...args]);
      expect(await s.exited, s.out()).toEqual({ code: 1, signal: null });
      expect(s.out()).toMatch(said);
      expect(s.out()).not.toMatch(/^\s+at /m);
    }
  });
});
