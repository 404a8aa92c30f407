/**
 * Hunt 129: what plugins are told of what a person answered, against what the records hold.
 *
 * - A plugin's `keep` in `turnEnd` of a run stopped for a person by a call in doubt (`turn-unfinished`) was never
 *   written: the run let go of its turn without flushing its journal. Now it is kept, and the turn still reads
 *   interrupted, with its call unfinished.
 * - A call left in doubt that a person answered (`resume({ results })`: `given`; `resume({ rerun })`: `rerun`)
 *   reached the resumed run's `toolResult` hook as nothing (a given result: no hook at all) or as any first run of
 *   the tool (a rerun). Now `answered` says so, read from the records (another process, another store instance).
 * - A person's refusal (an `approval` record, verdict `no`, with `by` and `reason`) never reached `toolResult`:
 *   the refused call was not shown to it at all. Now it is, with `refused: { by, reason }` and the text the model reads.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, tool, type LMRequest, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskModel, linkedClient, makeDesk } from "../mcp/fixtures/desk.js";
import { refusableRefund } from "../fixtures/refusable-refund.js";
import { tempDirs } from "../fixtures/temp-dirs.js";
import { watcher } from "./fixtures/watcher.js";
import { hungDesk } from "../otel/fixtures/hung-desk.js";

/** A fresh directory of conversations: each `fsStore` over it is another process's store, reading the same records. */
const recordsDir = tempDirs("functai-hunt129-");

/** A plugin that tells what it was shown, and keeps why a run stopped (in its turnEnd). */
const keepingWatcher = () =>
  watcher((end) => {
    if (end.state === "interrupted") end.keep({ stoppedFor: end.code ?? null });
  });

const refundHang = { name: "refund", input: { order_id: "HANG", amount: 39 } };

/** The desk's refund of HANG left in doubt in a first process; then the turn as a second process (a fresh store, desk and plugin) reads it. */
async function leftInDoubt() {
  const dir = recordsDir();
  const first = keepingWatcher();
  const chat = (await hungDesk()).conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang), plugins: [first.plugin] });
  await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
  const second = keepingWatcher();
  const desk = await makeDesk((await linkedClient({ hang: false, record: () => undefined })).client);
  const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang), plugins: [second.plugin] }).turns();
  return { turn: turn!, second };
}

describe("a run stopped by a call in doubt", () => {
  it("keeps what a plugin kept in its turnEnd; the turn still reads interrupted, its call unfinished", async () => {
    const { turn, second } = await leftInDoubt();
    expect([turn.state, turn.unfinished.map((t) => t.name)]).toEqual(["interrupted", ["refund"]]);
    await turn.resume({ results: { 1: { refunded: true } } });
    expect(second.starts.map((s) => s.kept)).toEqual([[{ stoppedFor: "turn-unfinished" }]]);
  });
});

describe("toolResult and a call in doubt that a person answered, in another process", () => {
  it("a result given: shown once, as the person's (answered given), not as a run of the tool", async () => {
    const { turn, second } = await leftInDoubt();
    expect(await turn.resume({ results: { 1: { refunded: true } } })).toMatch(/refunded/);
    const told = second.results.map(({ name, output, error, answered }) => ({ name, output, error, answered }));
    expect(told).toEqual([{ name: "refund", output: { refunded: true }, error: undefined, answered: { kind: "given", by: null } }]);
  });

  it("a rerun asked for: the tool's result says a person asked for it", async () => {
    const { turn, second } = await leftInDoubt();
    await turn.resume({ rerun: [1] });
    const told = second.results.map(({ name, error, answered }) => ({ name, error, answered }));
    expect(told).toEqual([{ name: "refund", error: undefined, answered: { kind: "rerun", by: null } }]);
  });
});

describe("toolResult and a person's refusal", () => {
  it("is shown the refused call, with who refused it and why (the approval record's by and reason)", async () => {
    const dir = recordsDir();
    const { desk, lm } = refusableRefund();
    const first = keepingWatcher();
    const chat = desk.conversation("sam", { store: fsStore(dir), lm: lm(), approve: "changes", plugins: [first.plugin] });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    const second = keepingWatcher();
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: lm(), plugins: [second.plugin] }).turns();
    expect(await turn!.deny({ by: "maria", reason: "not today" })).toBe("Not refunded.");
    const told = second.results.map(({ name, output, error, approved, refused }) => ({ name, output, error, approved, refused }));
    expect(told).toEqual([
      {
        name: "refund",
        output: "The person did not allow this call. Reason: not today",
        error: undefined,
        approved: null,
        refused: { by: "maria", reason: "not today" },
      },
    ]);
  });
});

describe("told once", () => {
  it("a refusal is told by the run that goes on after it, not again by a later run that replays it", async () => {
    const dir = recordsDir();
    const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `sent ${amount}`);
    const desk = ai("desk", { description: "Refunds.", input: { m: z.string() }, tools: [refund] });
    const reply = (r: LMRequest) => {
      const seen = r.messages.filter((m) => m.role === "tool").length;
      return seen < 2 ? { toolCalls: [{ name: "refund", input: { amount: 5 + seen } }] } : "Done.";
    };
    const lm = () => scripted(Array.from({ length: 6 }, () => reply));
    const chat = desk.conversation("sam", { store: fsStore(dir), lm: lm(), approve: "changes" });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    const later = keepingWatcher();
    const handle = async () => (await desk.conversation("sam", { store: fsStore(dir), lm: lm(), plugins: [later.plugin] }).turns())[0]!;
    await expect((await handle()).deny({ by: "maria", reason: "not today" })).rejects.toMatchObject({ code: "turn-waiting" });
    expect(await (await handle()).approve({ by: "maria" })).toBe("Done.");
    const told = later.results.map(({ output, refused, approved }) => ({ output, refused, approved }));
    expect(told).toEqual([
      { output: "The person did not allow this call. Reason: not today", refused: { by: "maria", reason: "not today" }, approved: null },
      { output: "sent 6", refused: undefined, approved: { by: "maria" } },
    ]);
  });

  it("a result given that a plugin replaces: the model reads the replacement", async () => {
    const dir = recordsDir();
    const chat = (await hungDesk()).conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang) });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const redact: Plugin = {
      name: "redact",
      version: "1",
      hooks: { toolResult: (r) => (r.answered ? { output: { refunded: "(hidden)" } } : undefined) },
    };
    const desk = await makeDesk((await linkedClient({ hang: false, record: () => undefined })).client);
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang), plugins: [redact] }).turns();
    expect(await turn!.resume({ results: { 1: { refunded: true } } })).toContain("(hidden)");
  });
});
