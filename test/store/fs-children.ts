/** Starting fs-child.ts in a process of its own, and watching what it prints (fs.test.ts, fs-hostile.test.ts). */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./fs-child.ts", import.meta.url));

export interface Child {
  proc: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves once the child printed a line matching `test`. */
  saw(test: (line: string) => boolean): Promise<void>;
}

/** Runs `fs-child.ts <args…>`; its stdout lines are collected as they come. */
export function spawnChild(args: readonly string[]): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=functai-source", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let buffered = "";
  let stderr = "";
  proc.stdout!.on("data", (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
    for (const l of [...listeners]) l();
  });
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    proc.on("exit", (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  const saw = (test: (line: string) => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (lines.some(test)) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      void exited.then(() => {
        check();
        if (listeners.has(check)) reject(new Error(`child exited without the line; stderr: ${stderr}`));
      });
      check();
    });
  return { proc, lines, exited, saw };
}
