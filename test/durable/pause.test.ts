/**
 * Exactly once, also when a process pauses (DESIGN.md): a real child is
 * paused (SIGSTOP) inside a changing tool, past its lease. Its turn reads
 * `running` with `stalled: true` and nobody may claim it (its pid runs);
 * once it is killed, the turn reads `interrupted` at once, and a rerun
 * sees the same `ctx.idempotencyKey`. A paused holder whose lease is taken
 * wakes to an aborted `ctx.signal` and writes nothing more.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { makeRecord } from "../../src/records/make.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { scripted } from "../../src/testing/index.js";
import { Child as WatchedChild } from "./fixtures/hunt2-children.js";
import { pauseDesk } from "./fixtures/pause-desk.js";
import { reportReliability } from "./fixtures/reliability.js";
import { bundled, fixture, removeBundles } from "./fixtures/spawn.js";

const LEASE = { renewMs: 50, ttlMs: 200 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
afterAll(removeBundles);

/** What these tests did, for the suite's reliability figures: SIGSTOPs that held, SIGKILLs, refunds that ran to their end twice. */
const done = { pauses: 0, sigkills: 0, doubleRuns: 0 };
afterAll(() => reportReliability("pause", done));

/** A pause-child.ts process: its printed lines as they come, and its end (its stderr shown once it ends). */
class Child extends WatchedChild {
  constructor(proc: ChildProcess) {
    super(proc);
    void this.exited.then(() => {
      if (this.stderr.trim() !== "") console.error(this.stderr);
    });
  }

  /**
   * Pauses the child, never while it holds the store's file lock (a
   * renewal's append takes it for one synchronous write: a pause there
   * would block this process's appends, which these tests are not about).
   */
  async pause(lock: string): Promise<void> {
    for (;;) {
      this.proc.kill("SIGSTOP");
      if (!existsSync(lock)) return void done.pauses++;
      this.proc.kill("SIGCONT");
      await sleep(5);
    }
  }
}

async function start(dir: string, lease: { renewMs: number; ttlMs: number }): Promise<Child> {
  const script = await bundled(fixture("pause-child.ts"));
  return new Child(spawn(process.execPath, [script, JSON.stringify({ dir, lease })], { stdio: ["ignore", "pipe", "pipe"] }));
}

/** The desk in this process: its refund counts its runs and keeps the key it was given. */
function here(dir: string) {
  const runs: string[] = [];
  const lm = scripted(["Refunded."]);
  const desk = pauseDesk(async (ctx) => (runs.push(ctx.idempotencyKey), "refunded"));
  const store = fsStore(dir);
  return { runs, lm, store, chat: desk.conversation("pause", { store, lm, lease: LEASE }) };
}

const lastLease = (records: readonly ConversationRecord[]) =>
  records.filter((r) => r.kind === "lease").at(-1) as unknown as { until: string; attempt: number; holder: string; turn: string };

describe("a holder paused inside a changing tool (real processes)", () => {
  it("reads running with stalled: true and cannot be claimed; once killed, interrupted at once, and a rerun sees the same idempotency key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-pause-"));
    const child = await start(dir, LEASE);
    const { started } = await child.line("started");
    await child.pause(join(dir, "pause.jsonl.lock"));
    await sleep(LEASE.ttlMs * 3); // well past its lease
    const { runs, lm, store, chat } = here(dir);
    try {
      const lease = lastLease(await store.read("pause"));
      expect(Date.parse(lease.until)).toBeLessThan(Date.now()); // its lease says it ran out…
      const [turn] = await chat.turns();
      expect(turn!.state).toBe("running"); // …but its holder's pid runs
      expect(turn!.stalled).toBe(true);
      await expect(turn!.resume({ rerun: [1] })).rejects.toMatchObject({ code: "turn-state", message: expect.stringMatching(/stalled.*alive/) });
      expect(runs).toEqual([]);
    } finally {
      child.proc.kill("SIGKILL");
    }
    expect(await child.exited).toBe("SIGKILL");
    done.sigkills++;

    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.stalled).toBe(false);
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
    expect(await turn!.resume({ rerun: [1] })).toBe("Refunded.");
    // the child's run never got past its wait (it would have printed "woke"): the refund ran to its end once
    done.doubleRuns += Math.max(0, runs.length + child.lines.filter((l) => "woke" in l).length - 1);
    expect(runs).toEqual([started]); // the rerun ran here once, with the key the first run had
    expect(lm.requests).toHaveLength(1); // the first reply came from the journal
  });

  it("a holder killed while its lease still runs reads interrupted at once (its pid is gone)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-pause-"));
    const child = await start(dir, { renewMs: 10_000, ttlMs: 30_000 });
    await child.line("started");
    child.proc.kill("SIGKILL");
    expect(await child.exited).toBe("SIGKILL");
    done.sigkills++;
    const { store, chat } = here(dir);
    expect(Date.parse(lastLease(await store.read("pause")).until)).toBeGreaterThan(Date.now()); // its lease says it runs
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
  });

  it("a woken holder whose lease was taken sees ctx.signal aborted and writes nothing more", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-pause-"));
    const child = await start(dir, LEASE);
    await child.line("started");
    await child.pause(join(dir, "pause.jsonl.lock"));
    await sleep(LEASE.ttlMs * 3);
    const store = fsStore(dir);
    const records = await store.read("pause");
    const { turn, attempt } = lastLease(records);
    // another holder claims the turn (as a process on another host would: its pid cannot be looked up here)
    const claim = makeRecord("lease", { turn, holder: "h:elsewhere:1", until: new Date(Date.now() + 60_000).toISOString(), attempt: attempt + 1 }, Date.now());
    const length = await store.append("pause", [claim], { expect: records.at(-1)!.seq });
    child.proc.kill("SIGCONT");
    expect(await child.line("woke")).toEqual({ woke: true, reason: "lease-lost" });
    expect(await child.line("error")).toMatchObject({ error: "lease-lost" });
    expect(await child.exited).toBe(null);
    expect((await store.read("pause")).length).toBe(length); // nothing after the other holder's claim
  });

  it("a person may abandon a stalled turn; its holder wakes to an aborted signal and writes nothing more", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-pause-"));
    const child = await start(dir, LEASE);
    await child.line("started");
    await child.pause(join(dir, "pause.jsonl.lock"));
    await sleep(LEASE.ttlMs * 3);
    const { store, chat } = here(dir);
    const [turn] = await chat.turns();
    expect(turn!.stalled).toBe(true);
    await turn!.abandon();
    const length = (await store.read("pause")).length;
    child.proc.kill("SIGCONT");
    expect(await child.line("woke")).toEqual({ woke: true, reason: "lease-lost" });
    expect(await child.line("error")).toMatchObject({ error: "lease-lost" });
    expect(await child.exited).toBe(null);
    expect((await store.read("pause")).length).toBe(length);
    const [after] = await chat.turns();
    expect(after!.state).toBe("abandoned");
  });
});
