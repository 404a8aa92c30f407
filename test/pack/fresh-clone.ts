/**
 * Helpers for the packaging tests: a copy of the repository as a fresh clone
 * has it (the files git knows, no dist/), and commands run in child processes.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");

/** A new folder under the OS temp folder. */
export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `functai-${prefix}-`));

/**
 * The repository's files as a fresh clone holds them: tracked and new files
 * (not ignored ones, so no dist/), with the installed node_modules linked in.
 */
export function freshClone(): string {
  const dir = tempDir("clone");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "");
  for (const file of files) {
    const to = join(dir, file);
    mkdirSync(dirname(to), { recursive: true });
    // A file deleted in the work tree but still in the index is not part of the clone being tested.
    try {
      cpSync(join(root, file), to);
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    }
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** The version of a package installed in the repository (to install the same one in a consumer). */
export const installedVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/** Runs a command, failing with its output (not just its exit code) when it fails or outlasts `timeoutMs` (0: no limit). */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 0): string {
  try {
    return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}\n${stderr ?? ""}`, { cause: e });
  }
}
