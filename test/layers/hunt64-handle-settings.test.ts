/**
 * DESIGN "Public API": settings live in layers, and `withSettings(s, () => …)`
 * reaches "the block's calls", which "take them at their synchronous start".
 * A turn handle's `approve({ id })` and `deny({ id })` are such calls, but
 * they read the settings only after they have read and written the store
 * (src/conversation/turn.ts `#answer` → `#goOn` → `continueTurn` calls
 * `ctx.settings()` after an await): by then the block is over, so the turn
 * goes on with `configure`'s model, paid without a word, instead of the
 * block's (or is refused `lm-missing` when nothing is configured).
 * (`approve()` without an id, on a store without liveness, goes on at once and
 * takes the block's settings: the same call, answered otherwise by its options.)
 *
 * Now the handle takes its settings at the action's synchronous start
 * (src/conversation/turn.ts `#settledNow`), as `send` does.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, resetConfiguration, tool, withSettings } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

afterEach(() => resetConfiguration());

async function waitingTurn() {
  const refunds: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    refunds.push(order_id);
    return `refunded ${order_id}`;
  });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const store = memoryStore();
  const first = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }]);
  await expect(desk.conversation("sam", { store, approve: "changes", lm: first }).send("Refund A-1")).rejects.toMatchObject({
    code: "turn-waiting",
  });
  const configured = scripted(["<result>\nconfigure's model\n</result>"]);
  configure({ lm: configured });
  const block = scripted(["<result>\nthe block's model\n</result>"]);
  const turn = (await desk.conversation("sam", { store }).turns()).at(-1)!;
  return { turn, id: turn.waiting[0]!.id, configured, block, refunds };
}

describe("a turn handle's answer inside withSettings", () => {
  it("approve({ id }) goes on with the block's model, not configure's", async () => {
    const { turn, id, configured, block, refunds } = await waitingTurn();
    const answer = await withSettings({ lm: block }, () => turn.approve({ id, by: "maria" }));
    expect(refunds).toEqual(["A-1"]);
    expect(configured.requests).toHaveLength(0); // it was paid for (the block is over when the turn goes on)
    expect(block.requests).toHaveLength(1);
    expect(answer).toBe("the block's model");
  });

  it("deny({ id }) goes on with the block's model, not configure's", async () => {
    const { turn, id, configured, block, refunds } = await waitingTurn();
    const answer = await withSettings({ lm: block }, () => turn.deny({ id, reason: "not today" }));
    expect(refunds).toEqual([]);
    expect(configured.requests).toHaveLength(0);
    expect(block.requests).toHaveLength(1);
    expect(answer).toBe("the block's model");
  });
});
