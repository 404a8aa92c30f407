/**
 * A turn that stopped in a process that lives on (its store failed under
 * it) is not left running for everyone else while that process lives: once
 * the store takes records again, the process says it let the turn go (a
 * lease that names no process, already run out). Another process then reads
 * the turn interrupted, long before the turn's lease would run out, and
 * resumes it; nothing is paid or run twice.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { scripted } from "../../src/testing/index.js";
import { LET_GO } from "../../src/conversation/host.js";
import { payDesk } from "./fixtures/pay-desk.js";
import { bundled, fixture, removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LONG_LEASE = { renewMs: 20_000, ttlMs: 60_000 }; // runs out long after this test: only the let-go can tell

describe("a turn let go by a process that lives on (real processes)", () => {
  it("reads interrupted elsewhere once the store is back, though its lease stands and its process runs; resumed there, the pay runs once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-let-go-"));
    const down = join(dir, "down");
    const script = await bundled(fixture("let-go-child.ts"));
    const child = spawn(process.execPath, [script, JSON.stringify({ dir, down, lease: LONG_LEASE })], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    try {
      for (let i = 0; i < 400 && !out.includes("\n"); i++) await new Promise((r) => setTimeout(r, 25));
      expect(JSON.parse(out.split("\n")[0]!)).toEqual({ error: "store-io" });
      expect(existsSync(down)).toBe(true);
      rmSync(down); // the disk has room again
      const { payer, paid } = payDesk();
      const store = fsStore(dir);
      // the child's paid reply (asking for pay) went with the batch the full disk refused: written with its let-go, it is
      // replayed here, not paid again; only the reply after pay is asked for
      const lm = scripted([{ text: "paid 5" }]);
      const chat = payer.conversation("let-go", { store, lm, lease: LONG_LEASE });
      let [turn] = await chat.turns();
      for (let i = 0; i < 200 && turn!.state !== "interrupted"; i++) {
        await new Promise((r) => setTimeout(r, 25));
        [turn] = await chat.turns();
      }
      expect(child.exitCode).toBe(null); // its process lives on
      expect([turn!.state, turn!.stalled]).toEqual(["interrupted", false]);
      const leases = (await store.read("let-go")).filter((r) => r.kind === "lease") as unknown as { holder: string; until: string }[];
      expect(leases.at(-1)!.holder.startsWith(LET_GO)).toBe(true);
      expect(Date.parse(leases.at(-2)!.until)).toBeGreaterThan(Date.now() + 30_000); // the lease it let go still had long to run
      expect(await turn!.resume()).toBe("paid 5");
      expect(paid).toEqual([5]); // the child never ran it: its started record was never kept
      expect(lm.requests).toHaveLength(1);
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
