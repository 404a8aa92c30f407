/** What the stream tests share: a desk whose model asks for one refund, and a wait for a condition. */
import { z } from "zod";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import type { LMRequest } from "../../src/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

/** Polls `test` every 5 ms, for 1 s at most. */
export const waitFor = async (test: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 5));
};

/** The desk (find_order, refund, note), its tools' counters, and a model that asks for a refund of 39 for A-1, then echoes the last tool message. */
export function refundDesk() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund, t.note] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] }, echoLast]);
  return { fn, t, lm };
}

/**
 * A desk whose model asks for a refund and a note at once (two approvals
 * under "changes"), then answers `last` (a text, or what it makes of the
 * request).
 */
export function twoAsks(last: string | ((request: LMRequest) => string)) {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund, t.note] });
  const lm = scripted([
    {
      toolCalls: [
        { name: "refund", input: { order_id: "A-1", amount: 39 } },
        { name: "note", input: { text: "refunded" } },
      ],
    },
    last,
  ]);
  return { fn, t, lm };
}
