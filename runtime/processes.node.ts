/**
 * This process as a lease names it, and whether a process so named still
 * runs (Node): the pid, the pid's start time (so a pid the system gave to a
 * new process is not taken for the old one), and where pids mean our pids: a
 * short hash of the host name and the Linux pid namespace (containers that
 * share a host name and a volume number their processes apart).
 */
import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import type { Processes } from "../src/runtime/types.js";

const orEmpty = (read: () => string): string => {
  try {
    return read();
  } catch {
    return ""; // no /proc (macOS, Windows): the pid alone then
  }
};

/**
 * Whether /proc speaks of our pid namespace: in one made without a /proc of
 * its own (`unshare --pid` without `--mount-proc`), `/proc/<pid>` is the
 * outer namespace's process of that number, and a start time read there is
 * another process's (when that one exits and its pid is reused, a live
 * holder would read as gone). Then the pid alone is used, as where there is
 * no /proc.
 */
export const procIsOurs = (): boolean => {
  const text = orEmpty(() => readFileSync("/proc/self/stat", "utf8"));
  return text.slice(0, text.indexOf(" ")) === String(process.pid);
};
const PROC_IS_OURS = procIsOurs();

/** `/proc/<pid>/stat`'s state (field 3) and start time (field 22, clock ticks since boot); null when there is no such entry (or /proc is not ours). */
function stat(pid: number): { state: string; start: string } | null {
  if (!PROC_IS_OURS) return null;
  const text = orEmpty(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  if (text === "") return null;
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" "); // the name (field 2) may hold spaces and parentheses
  return { state: fields[0] ?? "", start: fields[19] ?? "" };
}

const pidNamespace = orEmpty(() => readlinkSync("/proc/self/ns/pid"));

export const processes: Processes = {
  self: {
    pid: process.pid,
    start: stat(process.pid)?.start ?? "",
    place: createHash("sha256").update(`${hostname()}\0${pidNamespace}`).digest("hex").slice(0, 8),
  },
  runs(pid, start) {
    // No process has such a pid: signal 0 to pid 0 asks after this process's group (it "exists"), and past what
    // kill(2) takes process.kill throws a TypeError; either way the holder would be taken as alive for ever.
    if (!Number.isInteger(pid) || pid <= 0 || pid > 0x7fff_ffff) return false;
    try {
      process.kill(pid, 0); // signal 0: only asks whether the pid exists
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
      // EPERM: it exists, under another user; anything else: we cannot tell, so it may run
    }
    const now = stat(pid);
    if (now === null) return true;
    if (now.state === "Z" || now.state === "X") return false; // dead, not yet reaped by its parent
    return start === "" || now.start === "" || now.start === start;
  },
};
