/**
 * Hunt: a holder killed (SIGKILL) in its refund; its file then ends in a
 * torn line (half of a large batch, as a kill in the middle of its write
 * leaves), and two processes resume the turn at the same instant, both
 * asking for a rerun. One claims it, the other is told; the torn line is
 * cut, never read as a record; the refund runs once; nothing is paid twice.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { refunds } from "./fixtures/hunt-block.js";
import { type Child, start } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };
const CALL = { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] };

describe("a torn tail left by a kill, then two processes resuming at once (file store)", () => {
  it("one claims and reruns the refund once, the other is told turn-claimed or turn-state; the torn bytes are cut, every line reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt2-"));
    const effects = join(dir, "effects.log");
    const file = join(dir, "conversations", "t.jsonl");
    const children: Child[] = [];
    try {
      const a = await start("hunt2-turn-child.ts", { dir, conversation: "t", act: "send", effects, lease: LEASE, replies: [CALL, "Refunded."], release: join(dir, "never") });
      children.push(a);
      await a.line("started");
      a.proc.kill("SIGKILL");
      await a.exited;
      const before = await fsStore(dir).read("t");
      // half of a batch of 200 records, as the store writes one (every line but the batch's last ends in " \n"):
      // a hundred whole lines, then half a line, and never the batch's closing line
      const batch = Array.from({ length: 200 }, (_, i) => JSON.stringify({ functai_conversation: 1, kind: "note", at: new Date().toISOString(), seq: before.length + 1 + i, text: "x".repeat(100) })).join(" \n");
      appendFileSync(file, batch.slice(0, Math.floor(batch.length / 2) - 7));
      expect(await fsStore(dir).read("t")).toHaveLength(before.length); // the torn tail is not read
      const go = join(dir, "go");
      for (let i = 0; i < 2; i++) children.push(await start("hunt2-turn-child.ts", { dir, conversation: "t", act: "rerun", effects, lease: LEASE, replies: ["Refunded."], go }));
      await Promise.all(children.slice(1).map((c) => c.line("ready")));
      writeFileSync(go, "");
      const ends = await Promise.all(children.slice(1).map((c) => c.line((l) => "ok" in l || "error" in l)));
      const won = ends.filter((e) => "ok" in e);
      expect(won, JSON.stringify(ends)).toEqual([{ ok: "Refunded.", requests: 1 }]);
      expect(ends.find((e) => "error" in e)).toMatchObject({ error: expect.stringMatching(/^(turn-claimed|turn-state)$/), requests: 0 });
      expect(refunds(effects)).toHaveLength(1); // the rerun's; the killed holder never got past its wait
      const after = await fsStore(dir).read("t");
      expect(after.filter((r) => r.kind === "ended")).toHaveLength(1);
      expect(after.some((r) => r.kind === "note")).toBe(false);
      const lines = readFileSync(file, "utf8").split("\n");
      expect(lines.at(-1)).toBe(""); // ends on a newline: the torn bytes went
      for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      for (const c of children) c.kill();
    }
  });
});
