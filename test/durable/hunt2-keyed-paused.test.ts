/**
 * Hunt: `send(input, { key })` retried here while the turn that key started
 * runs in another process that is stopped (SIGSTOP) inside its refund, past
 * its lease, its pid alive. The retry must not start a second turn nor pay
 * a model reply; it waits, and answers as that turn does once it ends.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { hereDesk, refunds } from "./fixtures/hunt-block.js";
import { start, until } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };
const CALL = { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("a keyed send retried while the key's turn is stopped in another process (file store, real SIGSTOP)", () => {
  it("starts nothing and pays nothing while it waits; once the holder wakes and ends, it answers with that turn's answer; the refund ran once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt2-"));
    const effects = join(dir, "effects.log");
    const release = join(dir, "release");
    const lock = join(dir, "conversations", "k.jsonl.lock");
    const a = await start("hunt2-turn-child.ts", { dir, conversation: "k", act: "send", key: "req-1", effects, lease: LEASE, replies: [CALL, "Refunded."], release });
    try {
      await a.line("started");
      // stopped, never while it holds the store's lock (a renewal's append)
      for (;;) {
        a.proc.kill("SIGSTOP");
        await until("A is stopped", () => a.stopped());
        if (!existsSync(lock)) break;
        a.proc.kill("SIGCONT");
        await sleep(5);
      }
      const inner = fsStore(dir);
      let reads = 0;
      const store: Store = { ...inner, read: (id, after) => (reads++, inner.read(id, after)) };
      const lm = scripted([]);
      const chat = hereDesk(effects).conversation("k", { store, lm, lease: LEASE });
      await until("the turn reads stalled", async () => (await chat.turns())[0]?.stalled === true);
      let settled = false;
      const retry = chat.send({ request: "Refund A-1." }, { key: "req-1" }).finally(() => (settled = true));
      retry.catch(() => undefined);
      const from = reads;
      await until("the retry looked at the conversation a few times", () => reads >= from + 5 || settled);
      expect(settled).toBe(false); // it waits for the stalled turn, it neither answers nor gives up yet
      expect(lm.requests).toHaveLength(0);
      expect((await inner.read("k")).filter((r) => r.kind === "turn")).toHaveLength(1);
      writeFileSync(release, "");
      a.proc.kill("SIGCONT");
      expect(await a.line((l) => "ok" in l || "error" in l)).toMatchObject({ ok: "Refunded.", requests: 2 });
      expect(await retry).toBe("Refunded.");
      expect(lm.requests).toHaveLength(0);
      expect(refunds(effects)).toHaveLength(1);
      expect((await inner.read("k")).filter((r) => r.kind === "turn")).toHaveLength(1);
    } finally {
      a.kill();
    }
  });
});
