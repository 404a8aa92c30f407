/** Starting a test's child script (fs-child.ts and others) in a process of its own, and watching what it prints. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./fs-child.ts", import.meta.url));

export interface Child {
  proc: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves once the child printed a line matching `test` (rejects if it exits first). */
  saw(test: (line: string) => boolean): Promise<void>;
  /** The first line that matches `test`, once printed. */
  line(test: (line: string) => boolean): Promise<string>;
}

/** Runs `fs-child.ts <args…>` (see there). */
export const spawnChild = (args: readonly string[]): Child => spawnScript(script, args);

/** Runs a TypeScript file (from source) with `args`; its stdout lines are collected as they come. */
export function spawnScript(file: string, args: readonly string[]): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", "--conditions=functai-source", file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
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
  const line = (test: (line: string) => boolean): Promise<string> => saw(test).then(() => lines.find(test)!);
  return { proc, lines, exited, saw, line };
}
