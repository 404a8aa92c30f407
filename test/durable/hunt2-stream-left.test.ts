/**
 * Hunt: a `stream()` consumer leaves its loop (break) while a changing tool
 * runs (which stops the turn: src/turn/stream.ts), and another process tries
 * to resume the turn meanwhile and after. The tool (deaf to its signal) is
 * not run again anywhere, the other process is refused both times, and no
 * reply is paid twice.
 */
import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refunds } from "./fixtures/hunt-block.js";
import { start, until } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };
const CALL = { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] };

describe("a stream left while its changing tool runs, and another process resuming (file store)", () => {
  it("the other process is refused while the tool still runs here and once the turn reads stopped; the refund ran once, one reply paid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt2-"));
    const effects = join(dir, "effects.log");
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    let running = false;
    let aborted = false;
    const refund = tool("refund", { description: "Refund an order.", input: { order: z.string() }, effects: "changes" }, async (_input, ctx) => {
      running = true;
      await gate; // deaf to ctx.signal: the side effect happens anyway, as a slow API's would
      aborted = ctx.signal.aborted;
      appendFileSync(effects, `${ctx.idempotencyKey}\n`);
      return "refunded";
    });
    const desk = ai("desk", { description: "Answer refund requests.", input: { request: z.string() }, tools: [refund] });
    const lm = scripted([CALL, "Refunded."]);
    const chat = desk.conversation("s", { store: fsStore(dir), lm, lease: LEASE });
    const s = chat.stream({ request: "Refund A-1." });
    for await (const e of s) if (e.type === "tool_call") break; // left, the tool about to run
    await until("the refund runs", () => running);
    await new Promise((r) => setTimeout(r, LEASE.ttlMs * 2)); // past one lease: only renewals keep it running
    const rerun = async (): Promise<Record<string, unknown>> => {
      const other = await start("hunt2-turn-child.ts", { dir, conversation: "s", act: "rerun", effects, lease: LEASE, replies: ["Refunded elsewhere."] });
      try {
        return await other.line((l) => "ok" in l || "error" in l);
      } finally {
        other.kill();
      }
    };
    // still running here (the stopped turn waits for its tool): nobody else may go on with it
    expect(await rerun()).toMatchObject({ error: expect.stringMatching(/^(turn-state|turn-claimed)$/), requests: 0 });
    finish();
    await expect(s).rejects.toMatchObject({ code: expect.stringMatching(/^turn-/) });
    expect(aborted).toBe(true); // the break stopped the turn: the tool was told
    // (for a moment after the tool returns the turn reads interrupted, its refund unfinished, before its done and ended records)
    await until("the turn reads stopped", async () => (await chat.turns())[0]?.state === "stopped");
    expect(await rerun()).toMatchObject({ error: "turn-state", requests: 0 }); // a stopped turn is never resumed
    expect(refunds(effects)).toHaveLength(1);
    expect(lm.requests).toHaveLength(1);
  });
});
