/**
 * Hunt: two processes answer one waiting turn at the same instant (both
 * start on one file's appearance): one approves, the other abandons or
 * denies. One answer stands; the refund runs at most once, and never when a
 * deny or an abandon stood; the loser is told with a clear code; nothing is
 * paid twice.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { hereDesk, refunds } from "./fixtures/hunt-block.js";
import { type Child, start } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 100, ttlMs: 2_000 };
const CALL = { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] };
const LOSER_CODES = /^(turn-state|turn-claimed|approval-answered)$/;
const get = (r: ConversationRecord, key: string): unknown => (r as unknown as Record<string, unknown>)[key];

describe("an approval racing an abandon or a deny from another process (file store)", () => {
  it("6 rounds, each answer started at one instant in two processes: one stands; the refund ran once exactly when the approval stood", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt2-"));
    const effects = join(dir, "effects.log");
    const store = fsStore(dir);
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const other = i % 2 === 0 ? "abandon" : "deny";
      const id = `race-${i}`;
      const before = refunds(effects).length;
      const chat = hereDesk(effects).conversation(id, { store, lm: scripted([CALL]), approve: ["refund"], lease: LEASE });
      await expect(chat.send({ request: "Refund A-1." })).rejects.toBeInstanceOf(Waiting);
      const go = join(dir, `go-${i}`);
      const children: Child[] = [];
      try {
        const base = { dir, conversation: id, effects, lease: LEASE, go };
        children.push(await start("hunt2-turn-child.ts", { ...base, act: "approve", replies: ["Refunded."] }));
        children.push(await start("hunt2-turn-child.ts", { ...base, act: other, replies: ["Not refunded."] }));
        await Promise.all(children.map((c) => c.line("ready")));
        writeFileSync(go, "");
        const [approved, answered] = await Promise.all(children.map((c) => c.line((l) => "ok" in l || "error" in l || "waiting" in l)));
        const [final] = await chat.turns();
        const records = await store.read(id);
        const ran = refunds(effects).length - before;
        const verdicts = records.filter((r) => r.kind === "approval").map((r) => get(r, "verdict"));
        seen.add(`${other}: ${"ok" in approved! ? "approve" : other} stood`);
        expect(verdicts.length).toBeLessThanOrEqual(1); // one person's answer is kept, never both
        if ("ok" in approved!) {
          expect(approved).toMatchObject({ ok: "Refunded.", requests: 1 });
          expect(answered).toMatchObject({ error: expect.stringMatching(LOSER_CODES) });
          expect(final!.state).toBe("done");
          expect(verdicts).toEqual(["yes"]);
          expect(ran).toBe(1);
        } else {
          expect(approved).toMatchObject({ error: expect.stringMatching(LOSER_CODES), requests: 0 });
          expect(answered).toMatchObject({ ok: other === "abandon" ? "abandoned" : "Not refunded." });
          expect(final!.state).toBe(other === "abandon" ? "abandoned" : "done");
          expect(verdicts).toEqual(other === "abandon" ? [] : ["no"]);
          expect(ran).toBe(0);
        }
        expect(records.filter((r) => r.kind === "ended")).toHaveLength(1);
      } finally {
        for (const c of children) c.kill();
      }
    }
    expect(seen.size).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
