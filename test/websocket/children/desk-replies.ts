/**
 * The replies of the websocket fixtures' desk (find_order, then refund, then
 * an answer quoting the last tool), for a served desk in a process of its
 * own: each reply is answered by where the turn is, and `onPaid` is told of
 * each one paid for (a child writes it down, so its parent counts them
 * whatever became of the process).
 */
import type { LMRequest } from "../../../src/lm/types.js";
import { scripted } from "../../../src/testing/index.js";

const steps = [
  { toolCalls: [{ name: "find_order", input: { order_id: "A-1042" } }] },
  { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
];

export function deskReplies(onPaid: () => void): ReturnType<typeof scripted> {
  const reply = (req: LMRequest) => {
    onPaid();
    const step = req.messages.filter((m) => m.role === "tool").length;
    return step < 2 ? steps[step]! : `The last tool said: ${String(req.messages.at(-1)!.content)}`;
  };
  return scripted(Array.from({ length: 60 }, () => reply));
}
