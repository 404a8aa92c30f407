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
