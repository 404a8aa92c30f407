/**
 * Format 1 writes the built-in approval's records with `plugin` absent,
 * null, "" or "approval" (src/records/keys.ts): all four are one question.
 * A plugin may ask a person a question of its own (`toolCall` → `{ ask }`),
 * and its records name it by the plugin's name. A plugin named "approval"
 * is therefore read as the built-in approval: its question and the rule's
 * (`approve: "changes"`) become one, and a person who answers only the
 * plugin's question ("Is the customer verified?") lets a changing tool run
 * that the rule said a person must approve.
 *
 * Decided: a plugin named "approval" is refused (`plugin-invalid`, in
 * src/settings.ts `checkPlugins`, as "" is), before any model call.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, isFunctaiError, memoryStore, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a plugin named like the built-in approval", () => {
  it("does not let an answer to its own question approve a call the rule asks a person about", async () => {
    let refunds = 0;
    const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, () => {
      refunds += 1;
      return "refunded";
    });
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [refund] });
    const verified = { name: "approval", version: "1", hooks: { toolCall: () => ({ ask: "Is the customer verified?" }) } };
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "Refunded."]);
    const store = memoryStore();

    let sent: unknown;
    try {
      await desk.conversation("sam", { store, lm, approve: "changes", plugins: [verified] }).send("Refund A-1");
    } catch (e) {
      sent = e;
    }
    if (isFunctaiError(sent, "plugin-invalid")) {
      // the name refused: before the model was asked, nothing written
      expect(lm.requests).toHaveLength(0);
      expect(await store.read("sam")).toEqual([]);
      return;
    }
    expect(sent).toBeInstanceOf(Waiting);

    // A person answers the plugin's question, and only it.
    const [turn] = await desk.conversation("sam", { store, lm, plugins: [verified] }).turns();
    const question = turn!.waiting.find((a) => a.question === "Is the customer verified?")!;
    await turn!.approve({ by: "maria", id: question.id }).catch((e: unknown) => e);

    // The rule's approval of the refund is still to be given: nothing ran, the turn waits for it.
    expect(refunds).toBe(0);
    const [after] = await desk.conversation("sam", { store, lm, plugins: [verified] }).turns();
    expect(after!.state).toBe("waiting");
    expect(after!.waiting.map((a) => a.name)).toEqual(["refund"]);
  });
});
