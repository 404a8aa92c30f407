/**
 * A process in a pid namespace made without a /proc of its own (`unshare
 * --pid --fork` without `--mount-proc`): /proc there names the outer
 * namespace's processes, so a start time read for "pid 1" is another
 * process's. The lease's holder then gives its pid alone (no start time),
 * as where there is no /proc, rather than another process's start, which
 * would read as gone once that other process's pid was reused.
 * Needs the kernel to let this machine make a pid namespace (root here); where it does not, the test says so and checks nothing.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = `
  const { processes } = await import("./runtime/processes.node.ts");
  const { readFileSync } = await import("node:fs");
  const statPid = readFileSync("/proc/self/stat", "utf8").split(" ")[0];
  console.log(JSON.stringify({ pid: process.pid, statPid, self: processes.self, runsSelf: processes.runs(process.pid, processes.self.start) }));
`;
const run = (prefix: string[]) =>
  spawnSync(prefix[0]!, [...prefix.slice(1), process.execPath, "--conditions=functai-source", "--import", "tsx", "--input-type=module", "-e", SCRIPT], { cwd: root, encoding: "utf8", timeout: 30_000 });

const canUnshare = spawnSync("unshare", ["--pid", "--fork", "true"], { encoding: "utf8" }).status === 0;

describe("a pid namespace without its own /proc", () => {
  it.skipIf(!canUnshare)("the holder names its pid without another process's start time; outside one, with its own", () => {
    const inner = run(["unshare", "--pid", "--fork"]);
    expect(inner.status, inner.stderr).toBe(0);
    const got = JSON.parse(inner.stdout.trim()) as { pid: number; statPid: string; self: { pid: number; start: string }; runsSelf: boolean };
    expect(got.pid).toBe(1);
    expect(got.statPid).not.toBe("1"); // (what makes this case: /proc/self is the outer namespace's view)
    expect(got.self).toMatchObject({ pid: 1, start: "" });
    expect(got.runsSelf).toBe(true);
    const outer = run(["env"]);
    expect(outer.status, outer.stderr).toBe(0);
    const here = JSON.parse(outer.stdout.trim()) as { pid: number; statPid: string; self: { start: string } };
    expect(here.statPid).toBe(String(here.pid));
    expect(here.self.start).toMatch(/^\d+$/);
  });
});
