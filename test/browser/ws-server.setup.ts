/**
 * Global setup of the browser project (runs in Node): a WebSocket server for
 * `websocket.browser.test.ts`, in a child process of its own (ws-server.ts,
 * the package's source through tsx), stopped at the end. The page gets its
 * address through `inject("functaiWsUrl")` (and one bound to a path through
 * `inject("functaiWsBoundUrl")`).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    functaiWsUrl: string;
    /** The same desk served on the path "/functai" only. */
    functaiWsBoundUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const script = fileURLToPath(new URL("./ws-server.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=functai-source", script], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const urls = await new Promise<{ url: string; bound: string }>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`the WebSocket server did not start in 30 s: ${stderr}`)), 30_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^bound (\S+)\nurl (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ bound: m[1]!, url: m[2]! });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the WebSocket server exited (${code}) before it listened: ${stderr}`));
    });
  });
  project.provide("functaiWsUrl", urls.url);
  project.provide("functaiWsBoundUrl", urls.bound);
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
}
