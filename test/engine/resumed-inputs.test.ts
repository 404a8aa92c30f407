/**
 * A resumed turn reads its inputs back from the journal (JSON). Its
 * requests must be laid out the same as the first run's, or the replies
 * recorded for them do not match and are paid for again: an optional input
 * left out as `undefined`, or a Date a zod transform made, is shown as the
 * journal keeps it from the first run on.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-resumed-inputs-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("a turn approved from a handle read from the store takes its recorded reply: no model call paid twice, the approved tool runs", async () => {
  const refunds: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    refunds.push(order_id);
    return "refunded";
  });
  const desk = ai("desk", {
    description: "Help.",
    input: { message: z.string(), note: z.string().optional(), since: z.string().transform((s) => new Date(s)) },
    tools: [refund],
  });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "done", "asked again"]);
  const chat = desk.conversation("sam", { store: fsStore(dir), lm, approve: "changes" });
  const waiting = await chat.send({ message: "Refund A-1", note: undefined, since: "2026-09-02" }).catch((e: unknown) => e);
  expect(waiting).toBeInstanceOf(Waiting);

  const turn = (await desk.conversation("sam", { store: fsStore(dir), lm }).turns()).at(-1)!;
  expect(await turn.approve({ by: "maria" })).toBe("done");
  expect(refunds).toEqual(["A-1"]);
  expect(lm.requests).toHaveLength(2);
  expect(lm.requests[0]!.messages[1]!.content).toBe("<message>\nRefund A-1\n</message>\n\n<since>\n2026-09-02T00:00:00.000Z\n</since>");
  expect(lm.requests[1]!.messages.slice(0, 2)).toEqual(lm.requests[0]!.messages);
});
