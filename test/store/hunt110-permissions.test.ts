/**
 * The fs store run by a user that may not write (or read) its folder: for
 * real, in a child process of an unprivileged user (uid 65534, through
 * `setpriv`, else `runuser -u nobody`; a test run that is not root is
 * unprivileged already and runs the child as itself). Every call the
 * permissions forbid fails `store-io`, naming the path and saying what to
 * change (it said only "EACCES: permission denied"); every call they allow
 * gives the records the file holds; nothing waits; the file is left as it
 * was. A lock a dead process left in a folder the user can read but not
 * write was taken for "another process is breaking it": the append waited
 * its whole lock timeout (for ever with Infinity), then said the dead
 * holder was "alive, only slow or paused".
 */
import { execFile, spawnSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { spawnChild } from "./fs-children.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const child = fileURLToPath(new URL("./hunt110-as-user-child.ts", import.meta.url));
const has = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: "ignore" }).status === 0;

/** How to run a command as a user without privileges here: nothing (not root), setpriv, runuser, or undefined (none found). */
const asUser: string[] | undefined =
  process.getuid?.() !== 0
    ? []
    : has("setpriv", ["--version"])
      ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
      : has("runuser", ["-u", "nobody", "--", "true"])
        ? ["runuser", "-u", "nobody", "--"]
        : undefined;
if (asUser === undefined) console.warn("[hunt110] root, and neither setpriv nor runuser is here: the permission tests are skipped.");

type Result = { op: string; value?: unknown; code?: string; message?: string };

/** Runs the child as the unprivileged user: each call's result, by name (it fails if the child hangs). */
function runAsUser(dir: string, lockTimeoutMs = 5_000): Promise<Record<string, Result>> {
  const [command, ...prefix] = [...asUser!, process.execPath];
  const args = [...prefix, "--import", "tsx", "--conditions=functai-source", child, dir, "c", String(lockTimeoutMs)];
  return new Promise((resolve, reject) =>
    execFile(command!, args, { cwd: repo, timeout: 50_000 }, (e, stdout, stderr) => {
      if (e !== null || !stdout.endsWith("done\n")) return reject(new Error(`the child failed or hung: ${e?.message ?? ""}\n${stderr}`));
      const lines = stdout.trim().split("\n").slice(0, -1);
      resolve(Object.fromEntries(lines.map((l) => JSON.parse(l) as Result).map((r) => [r.op, r])));
    }),
  );
}

const note = (text: string): Record<string, unknown> => ({ functai_conversation: 1, kind: "note", at: "2026-12-06T12:00:00.000Z", text });
const KEPT = ["kept 1", "kept 2"];
/** What a refusal for want of permission says to do. */
const FIX = /may not do that there: give it read and write access to the store's folder .* or give fsStore a folder it owns\./;

let dir: string;
let folder: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-hunt110-perm-"));
  await chmod(dir, 0o755); // (the other user may look into it)
  folder = join(dir, "conversations");
  file = join(folder, "c.jsonl");
});
afterEach(async () => {
  await chmod(dir, 0o755).catch(() => undefined);
  await chmod(folder, 0o755).catch(() => undefined); // (a test run that is not root removes what it may not write)
  await rm(dir, { recursive: true, force: true });
});

/** The conversation "c" with two records, written by the test's own user. */
async function seed(): Promise<string> {
  const store = fsStore(dir);
  await store.append("c", [note(KEPT[0]!), note(KEPT[1]!)]);
  await store.close!();
  return readFile(file, "utf8");
}

const refused = (r: Result | undefined, path: string): void => {
  expect(r?.code, JSON.stringify(r)).toBe("store-io");
  expect(r?.message).toContain(path);
  expect(r?.message).toMatch(FIX);
};

describe.skipIf(asUser === undefined)("fsStore run by a user without permission (a child process of its own)", () => {
  it("a folder it cannot write, the conversations folder not made yet: append refused naming that folder, reads find nothing", async () => {
    await chmod(dir, 0o555);
    const r = await runAsUser(dir);
    refused(r.append, folder);
    expect([r.read?.value, r.length?.value, r.scan?.value, r.wait?.value, r.list?.value]).toEqual([[], 0, 0, false, []]);
  });

  it("a conversations folder it can read but not write: append refused naming its lock; reads give the records as they are", async () => {
    const before = await seed();
    await chmod(file, 0o444);
    await chmod(folder, 0o555);
    const r = await runAsUser(dir);
    refused(r.append, `${file}.lock`);
    expect([r.read?.value, r.length?.value, r.scan?.value, r.wait?.value, r.list?.value]).toEqual([KEPT, 2, 2, true, ["c"]]);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("a file it cannot read in a folder it may write: every call on it refused naming the file; list names it", async () => {
    const before = await seed();
    await chmod(file, 0o200);
    await chmod(folder, 0o777);
    const r = await runAsUser(dir);
    for (const op of ["append", "read", "length", "scan", "wait"]) refused(r[op], file);
    expect(r.list?.value).toEqual(["c"]);
    await chmod(file, 0o600);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("a file it can read but not write, in a folder it may write: append refused naming the file, reads give the records", async () => {
    const before = await seed();
    await chmod(file, 0o444);
    await chmod(folder, 0o777);
    const r = await runAsUser(dir);
    refused(r.append, file);
    expect([r.read?.value, r.length?.value, r.scan?.value, r.wait?.value, r.list?.value]).toEqual([KEPT, 2, 2, true, ["c"]]);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("a file it cannot read in a folder it cannot write: append refused at the lock, reads at the file", async () => {
    const before = await seed();
    await chmod(file, 0o000);
    await chmod(folder, 0o555);
    const r = await runAsUser(dir);
    refused(r.append, `${file}.lock`);
    for (const op of ["read", "length", "scan", "wait"]) refused(r[op], file);
    await chmod(file, 0o600);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("a lock a dead process left, in a folder it can read but not write: refused at once, never waited on nor blamed on a live holder", async () => {
    const before = await seed();
    const holder = spawnChild(["hold", dir, "c"]); // takes the lock and keeps it…
    await holder.saw((l) => l === "locked");
    holder.proc.kill("SIGKILL"); // …until it dies
    await holder.exited;
    await chmod(file, 0o444);
    await chmod(folder, 0o555);
    const r = await runAsUser(dir, 60_000);
    refused(r.append, `${file}.lock`);
    expect(r.append?.message).toMatch(/no live process holds this lock, but this process cannot break it/);
    expect(r.read?.value).toEqual(KEPT);
    expect(await readFile(file, "utf8")).toBe(before);
  });
});
