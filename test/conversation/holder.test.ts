/**
 * Lease holders name a process (pid, its start, host and pid namespace,
 * token): alive when its pid runs here, gone when it does not, unknowable
 * elsewhere. Real processes: this one, a child that ran and ended.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { platform } from "#runtime";
import { holderAlive, leaseHolder, runsHere } from "../../src/conversation/holder.js";

describe("lease holders", () => {
  it("names this process; its own holders are alive while their turns run here, gone once let go; an earlier process with its pid is gone", () => {
    const holder = leaseHolder();
    const self = platform.processes!.self;
    expect(holder.startsWith(`p1:${process.pid}:${self.start}:${self.place}:`)).toBe(true);
    expect(leaseHolder()).not.toBe(holder);
    expect(holderAlive(holder)).toBe(false); // no turn of it runs here
    runsHere(holder, true);
    expect(holderAlive(holder)).toBe(true); // its turn runs here: alive, whatever its lease says
    runsHere(holder, false);
    expect(holderAlive(holder)).toBe(false);
    expect(holderAlive(holder.replace(/:([0-9a-z]+)$/, ":zzzzzz1"))).toBe(false); // our pid and start, not our token: an earlier process
  });

  it("a running process of this host is alive; one that ended is gone; another host's, or another kind of holder, cannot be told", () => {
    const { self } = platform.processes!;
    const parent = `p1:${process.ppid}::${self.place}:abc1`; // the process that started this one runs (start unknown: the pid alone)
    expect(holderAlive(parent)).toBe(true);
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    expect(holderAlive(`p1:${ended.stdout}::${self.place}:abc1`)).toBe(false);
    expect(holderAlive(`p1:${process.ppid}::00000000:abc1`.replace("00000000", self.place === "00000000" ? "11111111" : "00000000"))).toBeUndefined();
    expect(holderAlive("h:k2j3:lq1")).toBeUndefined();
    expect(holderAlive(null)).toBeUndefined();
  });

  it("a pid that now belongs to a process started later is not the holder", () => {
    const { self } = platform.processes!;
    if (self.start === "") return; // no /proc: only the pid tells
    expect(holderAlive(`p1:${process.ppid}:1:${self.place}:abc1`)).toBe(false);
  });
});
