/**
 * A conversation handle opened inside a `withSettings` block keeps half of
 * the block: its store is resolved when it is opened (src/conversation/
 * conversation.ts: `resolveStore(options.store ?? settingsNow().store)`),
 * but its other settings are read again at each send (`settingsNow()` reads
 * the blocks open then), so a send made after the block (the usual way: the
 * handle is returned from the block and used later) runs without the block's
 * `approve`: a refund the block said to ask about runs unasked, into the
 * store the block named.
 *
 * Decided: a handle keeps the settings of the blocks open when it was
 * opened (as it keeps their store), under blocks open at a send and over
 * configure's (src/conversation/conversation.ts `opened`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, resetConfiguration, tool, withSettings } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

afterEach(() => resetConfiguration());

describe("a conversation opened inside withSettings, sent to after it", () => {
  it('is asked about a refund as the block said (approve: "changes"), not run unasked', async () => {
    const refunds: string[] = [];
    const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
      refunds.push(order_id);
      return `refunded ${order_id}`;
    });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
    configure({ lm: scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "<result>\ndone\n</result>"]) });
    const store = memoryStore();
    const chat = withSettings({ store, approve: "changes" }, () => desk.conversation("sam"));
    const sent = await chat.send("Refund A-1.").then(
      (answer) => ({ answer }),
      (e: unknown) => ({ code: (e as { code?: unknown }).code }),
    );
    expect(await store.read("sam")).not.toHaveLength(0); // the block's store was taken
    expect(refunds).toEqual([]); // it ran: ["A-1"]
    expect(sent).toEqual({ code: "turn-waiting" });
  });
});
