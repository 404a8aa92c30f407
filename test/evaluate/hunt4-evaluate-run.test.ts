/**
 * Hunt: evaluate() of a tool loop under an approval rule, stopped by its
 * signal while tools run, and its progress with many rows at once, some of
 * them failing. Counts tool bodies, model requests and progress reports.
 */
import { z } from "zod";
import { beforeEach, describe, expect, it } from "vitest";
import { ai, evaluate, memoryStore, tool, type LMRequest, type Progress } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { lookups, refunds, rows, status, teacher } from "./desk.js";

beforeEach(() => {
  lookups.length = 0;
  refunds.length = 0;
});

const refundRows = ["A-1042", "B-2210", "C-3301"].map((id) => ({ question: `Please refund ${id}.`, result: `refunded ${id}` }));

describe("evaluate under an approval rule", () => {
  it("a plain call under a rule fails its row with '<code>: <message>' saying how to get an answer; the changing tool never runs", async () => {
    const lm = teacher();
    const mixed = [rows[0]!, refundRows[0]!, rows[1]!, refundRows[1]!, rows[2]!, refundRows[2]!];
    const ev = await evaluate(status.using({ lm, approve: "changes" }), mixed, { concurrency: 8 });
    const failedRows = ev.rows.filter((r) => r.error !== null);
    expect(failedRows.map((r) => r.row)).toEqual(refundRows);
    for (const r of failedRows) {
      // "<code>: <message>", the message naming the ways to get an answer (a function, a stream, a conversation)
      expect(r.error).toMatch(/^approval-required: \S/);
      expect(r.error).toMatch(/function/i);
      expect(r.error).toMatch(/stream/i);
      expect(r.error).toMatch(/conversation/i);
      expect(r.outputs).toBeNull();
      expect(r.scores).toEqual({ exact_match: 0 });
    }
    expect(refunds).toEqual([]);
    expect(lookups.sort()).toEqual(["A-1042", "B-2210", "C-3301"]);
    expect(ev.summary[0]).toMatchObject({ n: 6, failed: 3, mean: 0.5 });
    // each refund row asked the model once (its tool call), then stopped before the tool
    expect(lm.requests).toHaveLength(3 * 2 + 3);
  });

  it("in a store: each row's turn record says caller { evaluation: run }; a row under a rule waits with no tool started", async () => {
    const store = memoryStore();
    const mixed = [rows[0]!, refundRows[0]!, rows[1]!];
    const ev = await evaluate(status.using({ lm: teacher(), approve: "changes" }), mixed, { concurrency: 8, store });
    expect(ev.rows.map((r) => r.error?.split(":")[0] ?? null)).toEqual([null, "turn-waiting", null]);
    for (const [i, r] of ev.rows.entries()) {
      const records = (await store.read(`${ev.run}-${i + 1}`)) as unknown as Record<string, unknown>[];
      const turns = records.filter((x) => x.kind === "turn");
      expect(turns).toHaveLength(1);
      expect(turns[0]!.caller).toEqual({ evaluation: ev.run });
      expect(turns[0]!.turn).toBe(r.turn);
      if (r.error !== null) {
        expect(records.filter((x) => x.kind === "tool")).toEqual([]);
        expect(records.filter((x) => x.kind === "waiting")).toHaveLength(1);
      }
    }
    expect(refunds).toEqual([]);
  });
});

/** A tool loop whose tool waits until its call is stopped (or 20 s), counting bodies started and ended. */
function slowDesk() {
  const count = { started: 0, ended: 0, sawAbort: 0 };
  const wait = tool("wait_for_it", { description: "Waits.", input: { n: z.number() }, effects: "reads" }, async (_input, ctx) => {
    count.started += 1;
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        ctx.signal.addEventListener("abort", () => {
          count.sawAbort += 1;
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
      return "waited";
    } finally {
      count.ended += 1;
    }
  });
  const fn = ai("waiter", { description: "Call wait_for_it, then answer.", input: { n: z.number() }, tools: [wait] });
  const reply = (r: LMRequest) => {
    const last = r.messages.at(-1)!;
    if (last.role === "tool") return "<result>\nwaited\n</result>";
    return { toolCalls: [{ name: "wait_for_it", input: { n: 1 } }] };
  };
  return { count, fn, lm: scripted(Array.from({ length: 200 }, () => reply)) };
}

describe("evaluate stopped by its signal while rows run tools", () => {
  it("rejects turn-aborted; every tool body that started was told to stop and had ended when it settled; no new row or tool starts after", async () => {
    const { count, fn, lm } = slowDesk();
    const controller = new AbortController();
    const data = Array.from({ length: 20 }, (_, n) => ({ n, result: "waited" }));
    const run = evaluate(fn.using({ lm }), data, { concurrency: 8, signal: controller.signal });
    run.catch(() => {});
    await expect.poll(() => count.started, { timeout: 10_000 }).toBe(8);
    controller.abort(new Error("enough"));
    await expect(run).rejects.toMatchObject({ code: "turn-aborted" });
    expect(count.sawAbort).toBe(8);
    expect(count.ended).toBe(8);
    const requests = lm.requests.length;
    expect(requests).toBe(8);
    await new Promise((r) => setTimeout(r, 100));
    expect(count.started).toBe(8);
    expect(lm.requests.length).toBe(requests);
  });
});

/**
 * A tool deaf to ctx.signal: evaluate, stopped, settles only once the rows' turns ended. DESIGN ("Evaluate and
 * optimize"): a call made by evaluate "is cancelled by signal", and evaluate's pool promises that nothing of the
 * run goes on after it settled. A stopped turn's call settles once its run let go of the turn (resultOf waits for
 * the session's run: the tool, then the `ended` record), so evaluate rejects turn-aborted after the last record.
 * (Before, it rejected as the actor entered `stopped`, and the rows' turns went on writing after it settled.)
 */
describe("evaluate stopped while a tool ignores its signal", () => {
  it("settles only once the rows' turns ended: nothing of the run is written to its store after it settled", async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const count = { started: 0, ended: 0 };
    const deaf = tool("deaf", { description: "Waits, deaf to stops.", input: {}, effects: "changes" }, async () => {
      count.started += 1;
      await gate;
      count.ended += 1;
      return "done";
    });
    const fn = ai("deafwaiter", { description: "Call deaf, then answer.", input: { n: z.number() }, tools: [deaf] });
    const lm = scripted(Array.from({ length: 50 }, () => (r: LMRequest) => (r.messages.at(-1)!.role === "tool" ? "<result>\nok\n</result>" : { toolCalls: [{ name: "deaf", input: {} }] })));
    const store = memoryStore();
    const controller = new AbortController();
    const run = evaluate(fn.using({ lm, approve: () => true }), Array.from({ length: 6 }, (_, n) => ({ n })), { metric: () => 1, concurrency: 3, signal: controller.signal, store });
    run.catch(() => {});
    await expect.poll(() => count.started, { timeout: 10_000 }).toBe(3);
    controller.abort(new Error("enough"));
    const outcome = await Promise.race([run.then(() => "resolved", (e: { code?: string }) => e.code), new Promise((r) => setTimeout(() => r("still running"), 2000))]);
    const conversations = await store.list!();
    const lengths = await Promise.all(conversations.map(async (c) => (await store.read(c)).length));
    open();
    await run.catch(() => {});
    const settled = await Promise.all(conversations.map(async (c) => (await store.read(c)).length));
    await new Promise((r) => setTimeout(r, 100));
    const later = await Promise.all(conversations.map(async (c) => (await store.read(c)).length));
    expect(count).toEqual({ started: 3, ended: 3 });
    // evaluate waited for the deaf tools (still running after 2 s), then settled turn-aborted once the turns wrote their end
    expect(outcome).toBe("still running");
    expect(await run.catch((e: { code?: string }) => e.code)).toBe("turn-aborted");
    expect(settled.every((n, i) => n > lengths[i]!)).toBe(true); // each row's tool `done` and `ended: stopped`, written before it settled
    expect(later).toEqual(settled); // and nothing after
  });
});

describe("progress with many rows at once, some failing", () => {
  it("concurrency 8: one report per row, done counts 1..total, failed counts the failed rows, the last adds up", async () => {
    // rows whose question says "boom" make the model fail; others answer right or wrong
    const echo = ai("echo", { description: "Say the word.", input: { question: z.string() } });
    const lm = scripted(Array.from({ length: 40 }, () => (r: LMRequest) => {
      const q = r.messages.at(-1)!.content;
      if (q.includes("boom")) throw new Error("model down");
      return `<result>\n${q.includes("right") ? "yes" : "no"}\n</result>`;
    }));
    const data = Array.from({ length: 30 }, (_, i) => ({ question: `${i % 4 === 0 ? "boom" : i % 3 === 0 ? "right" : "wrong"} ${i}`, result: "yes" }));
    const progress: Progress[] = [];
    const ev = await evaluate(echo.using({ lm }), data, { concurrency: 8, onProgress: (p) => progress.push({ ...p }) });
    const failing = data.filter((d) => d.question.startsWith("boom")).length;
    expect(progress).toHaveLength(30);
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(progress.every((p) => p.total === 30)).toBe(true);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.failed - progress[i - 1]!.failed).toBeGreaterThanOrEqual(0);
    expect(progress.at(-1)).toEqual({ done: 30, total: 30, failed: failing });
    expect(ev.rows.filter((r) => r.error !== null)).toHaveLength(failing);
    for (const r of ev.rows.filter((x) => x.error !== null)) expect(r.error).toMatch(/model down/);
    expect(ev.summary[0]).toMatchObject({ n: 30, failed: failing });
  });
});
