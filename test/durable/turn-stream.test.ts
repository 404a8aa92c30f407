import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Waiting } from "../../src/index.js";
import { faultyStore, memoryStore, scripted } from "../../src/testing/index.js";
import { amountDesk } from "../engine/fixtures.js";

function desk() {
  const { fn, REFUNDS } = amountDesk();
  const answer = (req: { messages: { role: string }[] }) =>
    `last: ${String(req.messages.at(-1)!.role === "tool" ? (req.messages.at(-1) as unknown as { content: string }).content : "")}`;
  // the first process is asked for the refund; a process going on later only for the answer (the rest is recorded)
  const lm = () => scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, answer]);
  const later = () => scripted([answer]);
  return { fn, REFUNDS, lm, later };
}

describe("turn.stream(): going on with a saved turn, as a stream", () => {
  it("a waiting turn opened elsewhere is answered in the stream, and its events stream in", async () => {
    const store = mkdtempSync(join(tmpdir(), "functai-turn-stream-"));
    const { fn, REFUNDS, lm, later } = desk();
    const first = lm();
    await expect(fn.conversation("sam", { store, approve: "changes", lm: first }).send("Refund.")).rejects.toBeInstanceOf(Waiting);
    const second = later();
    const turn = (await fn.conversation("sam", { store, lm: second }).turns()).at(-1)!;
    const s = turn.stream();
    expect(s.pending.map((a) => [a.name, a.input])).toEqual([["refund", { amount: 39 }]]);
    const answered = s.approve({ by: "maria" });
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    await answered;
    expect(await s).toBe("last: refunded 39");
    expect(types).toEqual(expect.arrayContaining(["approved", "tool_result", "done"]));
    expect(types).not.toContain("approval"); // shown where it was asked, not again
    expect(REFUNDS).toEqual([39]);
    expect(second.requests).toHaveLength(1); // only the reply after the refund was paid for here
  });

  it("an interrupted turn takes what the person says of its unfinished tool, then streams on", async () => {
    const inner = memoryStore();
    // the refund runs after its `started` is kept; the process "dies" before its `done` is written
    const doneOfRefund = (c: { records: readonly object[] }) =>
      c.records.some((r) => (r as { kind?: string; state?: string }).kind === "tool" && (r as { state?: string }).state === "done") ? ("before-write" as const) : undefined;
    const dying = faultyStore(inner, { failOn: doneOfRefund, crash: true });
    const { fn, REFUNDS, lm, later } = desk();
    await expect(fn.conversation("sam", { store: dying, lm: lm(), lease: { renewMs: 20, ttlMs: 60 } }).send("Refund.")).rejects.toMatchObject({ code: "store-io" });
    await new Promise((r) => setTimeout(r, 120)); // the lease runs out
    const second = later();
    const turn = (await fn.conversation("sam", { store: inner, lm: second }).turns()).at(-1)!;
    expect(turn.state).toBe("interrupted");
    expect(turn.unfinished.map((u) => u.name)).toEqual(["refund"]);
    await expect(turn.stream()).rejects.toMatchObject({ code: "turn-unfinished" });
    expect((await turn.refresh()).state).toBe("interrupted"); // the refusal ended nothing
    const s = turn.stream({ results: { 1: "refunded 39" } });
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    expect(await s).toBe("last: refunded 39");
    expect(types).toContain("done");
    expect(REFUNDS).toEqual([39]); // it ran once, before the crash; not again here: the person said what it returned
    expect(second.requests).toHaveLength(1);
  });
});
