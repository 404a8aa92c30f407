/**
 * Runner side: start one benchmark file in a child process of its own
 * (`node --expose-gc --import tsx file …`), collect its `@@bench` lines.
 */
import { spawn } from "node:child_process";
import { MARK, type Sample } from "./measure.js";

export interface ChildOutcome {
  ok: boolean;
  samples: Sample[];
  /** Other JSON payloads (the `--list` answer). */
  other: unknown[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
  ms: number;
}

export function runChild(
  file: string,
  args: string[],
  opts: { timeoutMs?: number; echo?: boolean; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildOutcome> {
  const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--conditions=functai-source", "--import", "tsx", file, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const samples: Sample[] = [];
    const other: unknown[] = [];
    let buf = "";
    let errBuf = "";
    const onLine = (line: string) => {
      if (line.startsWith(MARK)) {
        try {
          const v = JSON.parse(line.slice(MARK.length)) as unknown;
          if (v && typeof v === "object" && "metric" in v) samples.push(v as Sample);
          else other.push(v);
        } catch {
          if (opts.echo) process.stdout.write(`  [unreadable] ${line}\n`);
        }
      } else if (opts.echo && line.trim()) {
        process.stdout.write(`  | ${line}\n`);
      }
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      errBuf = (errBuf + d).slice(-4000);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (buf) onLine(buf);
      resolve({ ok: code === 0, samples, other, code, signal, stderrTail: errBuf.trim(), ms: Date.now() - t0 });
    });
  });
}
