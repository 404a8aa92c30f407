/**
 * Something that is not a regular file where a conversation file goes. A
 * named pipe (FIFO) opened for reading waits for a writer, and the store
 * opens in this thread: a read used to freeze the whole process for ever.
 * Every way in now refuses it (`store-io`, "not a regular file"), at once.
 * The reads run in a child process, so a freeze fails the test instead of
 * hanging it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const store = fileURLToPath(new URL("../../adapters/node-fs/index.ts", import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-not-a-file-"));
  await mkdir(join(dir, "conversations"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each call's outcome in a child process (its error's code, or "ok"), one a line; null when it did not end in 10 s. */
function outcomes(id: string): string[] | null {
  const script = `
    import { fsStore } from ${JSON.stringify(store)};
    const s = fsStore(${JSON.stringify(dir)}, { readCacheBytes: 0 });
    const calls = [() => s.read(${JSON.stringify(id)}), () => s.length(${JSON.stringify(id)}), () => s.scan(${JSON.stringify(id)}, 0, () => {}),
      () => s.wait(${JSON.stringify(id)}, 0, 10), () => s.append(${JSON.stringify(id)}, [{ functai_conversation: 1, kind: "note", at: "x" }])];
    for (const call of calls) console.log(await call().then(() => "ok", (e) => e.code + " " + e.message));
  `;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--conditions=functai-source", "--input-type=module", "-e", script], { timeout: 10_000, encoding: "utf8" });
  return run.signal !== null ? null : run.stdout.trim().split("\n");
}

describe.skipIf(process.platform === "win32")("fsStore: a named pipe where a conversation file goes", () => {
  it("read, length, scan, wait and append refuse it (store-io, not a regular file): none waits for a writer", () => {
    execFileSync("mkfifo", [join(dir, "conversations", "p.jsonl")]);
    const got = outcomes("p");
    expect(got, "the child froze").not.toBeNull();
    expect(got).toHaveLength(5);
    for (const line of got!) expect(line).toMatch(/^store-io .*not a regular file/);
  });
});
