/**
 * Hunt 152: records of a later format (`functai_conversation` past 1) in a turn's records. Every reader skips them,
 * as a kind it does not know (hunt 91: a later format is another format, whose keys may mean anything), but the
 * journal of a resumed run read them as its own: a later format's `reply` was replayed as the reply to its request,
 * and its `tool` record as a call's result (the model was told a payment was made, and the tool never ran). The
 * journal now skips them as the reader does: a request is sent anew (it costs, never misleads) and a call runs.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Journal } from "../../src/engine/journal.js";
import { ai, memoryStore, tool, Waiting } from "../../src/index.js";
import type { WaitingRecord } from "../../src/records/types.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const AT = "2026-09-30T10:00:00.000Z";
type Rec = Record<string, unknown>;
const rec = (seq: number, r: Rec): Rec => ({ functai_conversation: 1, at: AT, seq, turn: "t1", ...r });
const start: Rec[] = [
  rec(1, { kind: "turn", parent: null, program: "v1", inputs: {} }),
  rec(2, { kind: "lease", holder: "h", until: AT, attempt: 1 }),
];
const REPLY = { text: "hi", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };

describe("hunt 152: the journal skips records of a later format, as every reader does", () => {
  it("a later format's reply, tool record, approval and plugin record are not read as this format's", () => {
    const later = (seq: number, r: Rec): Rec => rec(seq, { ...r, functai_conversation: 2 });
    const journal = new Journal({
      turn: "t1",
      attempt: 2,
      records: [
        ...start,
        later(3, { kind: "reply", key: "k", response: REPLY }),
        later(4, { kind: "tool", site: "desk#1", invocation: 1, name: "pay", state: "done", output: "paid" }),
        later(5, { kind: "approval", site: "desk#1", invocation: 2, path: "desk/pay", verdict: "yes", by: "m", reason: null }),
        later(6, { kind: "plugin", plugin: "p", data: 1, attempt: 1 }),
      ],
    });
    expect(journal.takeReply("k")).toBeUndefined();
    expect(journal.tool("desk#1", 1)).toBeUndefined();
    expect(journal.answer("desk#1", 2, null, "desk/pay")).toBeUndefined();
    expect(journal.kept("p")).toEqual([]);
  });

  it("guard: the same records of this format are read", () => {
    const journal = new Journal({
      turn: "t1",
      attempt: 2,
      records: [...start, rec(3, { kind: "reply", key: "k", response: REPLY }), rec(4, { kind: "tool", site: "desk#1", invocation: 1, name: "pay", state: "done", output: "paid" })],
    });
    expect(journal.takeReply("k")).toEqual(REPLY);
    expect(journal.tool("desk#1", 1)?.output).toBe("paid");
  });

  it("as a user meets it: a later format's tool record for the approved call is not its result; the call runs", async () => {
    const paid: number[] = [];
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      paid.push(amount);
      return `paid ${amount}`;
    });
    const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });
    const store = memoryStore();
    const first = scripted([{ toolCalls: [{ id: "p1", name: "pay", input: { amount: 5 } }] }]);
    expect(await desk.conversation("c", { store, approve: "changes", lm: first }).send("pay 5").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const asked = (await store.read("c")).find((r) => r.kind === "waiting") as WaitingRecord;
    const { site, invocation } = asked.approvals[0]!;
    // a later version's record of that call (its keys another format's)
    await store.append("c", [
      { functai_conversation: 2, kind: "tool", at: AT, turn: asked.turn, site, invocation, name: "pay", state: "done", output: "paid 500" },
    ]);
    const lm = scripted([(request) => `saw: ${toolResults(request).map(([, content]) => content).join()}`]);
    const [turn] = await desk.conversation("c", { store, approve: "changes", lm }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("saw: paid 5");
    expect(paid).toEqual([5]);
  });
});
