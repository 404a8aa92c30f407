/** evaluate's contract: arguments checked up front, rows fail alone, approvals as for any call, signal, progress, records. */
import { z } from "zod";
import { beforeEach, describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, compare, evaluate, labeledFewShot, memoryStore, meanRange, tool, type LMRequest, type Progress } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { lookups, refunds, rows, status, teacher } from "./desk.js";

beforeEach(() => {
  lookups.length = 0;
  refunds.length = 0;
});

const answers = (replies: string[]) => scripted(replies.map((r) => `<result>\n${r}\n</result>`));

describe("evaluate: arguments", () => {
  it("refuses rows without an expected column when no metric is given, before any model call", async () => {
    const lm = teacher();
    const bad = [...rows.slice(0, 2), { question: "What is the status of A-1042?" }];
    await expect(evaluate(status.using({ lm }), bad)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 3 has no expected column \(result\)/) });
    await expect(bootstrapFewShot(status.using({ lm }), bad)).rejects.toMatchObject({ code: "input-invalid" });
    expect(lm.requests).toHaveLength(0);
    // with a metric the same rows are fine
    const ev = await evaluate(status.using({ lm }), bad, { metric: (_row, p) => (typeof p.result === "string" ? 1 : 0) });
    expect(ev.metrics).toEqual(["score"]);
    expect(ev.score).toBe(1);
  });

  it("refuses what is not rows, a bad expected, a bad concurrency", async () => {
    await expect(evaluate(status, "rows" as never)).rejects.toMatchObject({ code: "input-invalid" });
    await expect(evaluate(status, [1] as never)).rejects.toMatchObject({ code: "input-invalid" });
    await expect(evaluate(status, rows, { expected: { answer: "result" } })).rejects.toMatchObject({ code: "input-invalid" });
    await expect(evaluate(status, rows, { concurrency: 0 })).rejects.toMatchObject({ code: "input-invalid" });
    await expect(evaluate(status, rows, { metric: {} })).rejects.toMatchObject({ code: "input-invalid" });
  });
});

describe("evaluate: rows", () => {
  it("a metric that throws fails that row (its error), not the run", async () => {
    const ev = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 3), {
      metric: {
        right: (row, p) => p.result === row.result,
        picky: (row) => {
          if (String(row.question).includes("B-2210")) throw new Error("cannot judge this one");
          return 1;
        },
      },
    });
    expect(ev.metrics).toEqual(["right", "picky"]);
    expect(ev.rows.map((r) => r.error)).toEqual([null, "metric-failed: metric picky threw: cannot judge this one", null]);
    expect(ev.rows[1]!.scores).toEqual({ right: 0, picky: 0 });
    expect(ev.rows[1]!.outputs).toEqual({ result: "delivered" });
    expect(ev.summary).toEqual([
      { metric: "right", ...meanRange([1, 0, 1]), n: 3, failed: 1 },
      { metric: "picky", ...meanRange([1, 0, 1]), n: 3, failed: 1 },
    ]);
    expect(ev.score).toBeCloseTo(2 / 3, 12);
  });

  it("expected names another column; object outputs are scored field by field", async () => {
    const renamed = rows.slice(0, 2).map((r) => ({ question: r.question, truth: r.result }));
    const ev = await evaluate(status.using({ lm: teacher() }), renamed, { expected: "truth" });
    expect(ev.score).toBe(1);

    const triage = ai("triage", {
      description: "Sort the message.",
      input: { message: z.string() },
      output: z.object({ summary: z.string(), label: z.enum(["billing", "shipping"]) }),
    });
    const lm = scripted(['<result>\n{"summary":"Charged twice","label":"billing"}\n</result>', '<result>\n{"summary":"Late box","label":"billing"}\n</result>']);
    const tri = await evaluate(triage.using({ lm }), [
      { message: "I paid two times", summary: "charged TWICE", label: "billing" },
      { message: "Where is my box", summary: "late box", label: "shipping" },
    ], { concurrency: 1 });
    expect(tri.rows.map((r) => r.scores)).toEqual([
      { exact_match: 1, summary_match: 1, label_match: 1 },
      { exact_match: 0, summary_match: 1, label_match: 0 },
    ]);
    expect(tri.metrics).toEqual(["exact_match", "summary_match", "label_match"]);
  });

  it("an object output with a field named result: the row's result column is that field, not the whole object", async () => {
    const graded = ai("graded", {
      description: "Answer, and say how sure you are.",
      input: { question: z.string() },
      output: z.object({ result: z.string(), sure: z.boolean() }),
    });
    const lm = scripted(['<result>\n{"result":"Paris","sure":true}\n</result>', '<result>\n{"result":"Lyon","sure":false}\n</result>']);
    const ev = await evaluate(graded.using({ lm }), [
      { question: "Capital of France?", result: "paris" },
      { question: "Capital of Italy?", result: "Rome" },
    ], { concurrency: 1 });
    expect(ev.rows.map((r) => r.scores)).toEqual([{ exact_match: 1 }, { exact_match: 0 }]);
    expect(ev.rows[0]!.outputs).toEqual({ result: "Paris", sure: true });
    // labeled, such a row is an example only with every field, shown as the object
    const shown = labeledFewShot(graded, [{ question: "Capital of Spain?", result: "Madrid", sure: true }, { question: "Capital of Peru?", result: "Lima" }]);
    expect(shown.demos).toEqual([{ inputs: { question: "Capital of Spain?" }, outputs: { result: { result: "Madrid", sure: true } } }]);
  });

  it("a rule on a plain call fails the rows that need a person (approval-required); the rest go on", async () => {
    const mixed = [rows[0]!, { question: "Please refund B-2210.", result: "refunded B-2210" }, rows[2]!];
    const progress: Progress[] = [];
    const ev = await evaluate(status.using({ lm: teacher(), approve: "changes" }), mixed, { concurrency: 1, onProgress: (p) => progress.push(p) });
    expect(ev.rows.map((r) => r.error?.split(":")[0] ?? null)).toEqual([null, "approval-required", null]);
    expect(ev.rows[1]!.scores).toEqual({ exact_match: 0 });
    expect(ev.rows[1]!.outputs).toBeNull();
    expect(refunds).toEqual([]);
    expect(ev.summary[0]).toMatchObject({ metric: "exact_match", mean: 2 / 3, n: 3, failed: 1 });
    expect(progress).toEqual([
      { done: 1, total: 3, failed: 0 },
      { done: 2, total: 3, failed: 1 },
      { done: 3, total: 3, failed: 1 },
    ]);
    // an approve function answers at once, as for any call
    const approved = await evaluate(status.using({ lm: teacher(), approve: () => true }), mixed);
    expect(approved.score).toBe(1);
    expect(refunds).toEqual(["B-2210"]);
  });

  it("a signal stops the run: no new row starts, evaluate rejects with turn-aborted", async () => {
    const controller = new AbortController();
    const lm = teacher();
    const many = Array.from({ length: 40 }, (_, i) => rows[i % rows.length]!);
    const run = evaluate(status.using({ lm }), many, {
      concurrency: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 3) controller.abort(new Error("enough"));
      },
    });
    await expect(run).rejects.toMatchObject({ code: "turn-aborted" });
    expect(lm.requests.length).toBeLessThan(2 * 10);
  });

  it("in a store, each row is a one-turn conversation whose turn record names the run", async () => {
    const store = memoryStore();
    const ev = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { store });
    expect(ev.score).toBe(1);
    for (const [i, row] of ev.rows.entries()) {
      const records = await store.read(`${ev.run}-${i + 1}`);
      const turn = records.find((r) => r.kind === "turn") as unknown as { turn: string; caller: unknown };
      expect(turn.caller).toEqual({ evaluation: ev.run });
      expect(row.turn).toBe(turn.turn);
      expect(records.some((r) => r.kind === "ended")).toBe(true);
    }
    // a conversation's streamed turn names its caller the same way
    const s = status.using({ lm: teacher() }).conversation("streamed", { store }).stream(rows[0]!.question, { caller: { optimization: "opt-1" } });
    expect(await s).toBe(rows[0]!.result);
    const streamed = (await store.read("streamed")).find((r) => r.kind === "turn") as unknown as { caller: unknown };
    expect(streamed.caller).toEqual({ optimization: "opt-1" });
    // a rule in a store: the turn waits for a person; that row fails with turn-waiting, saved for someone to answer
    const waiting = await evaluate(status.using({ lm: teacher(), approve: "changes" }), [{ question: "Please refund C-3301.", result: "refunded C-3301" }], { store });
    expect(waiting.rows[0]!.error).toMatch(/^turn-waiting: /);
    expect(waiting.rows[0]!.turn).toEqual(expect.any(String));
    expect(refunds).toEqual([]);
  });
});

describe("evaluate: a progress callback that throws", () => {
  it("starts no new row, lets the running ones end, then rejects: no call of the run goes on after it settled", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = tool("slow", { description: "Waits.", input: {}, effects: "reads" }, async () => {
      await gate;
      return "done";
    });
    const fn = ai("waiter", { description: "Answer; call slow when asked to wait.", input: { question: z.string() }, tools: [slow] });
    const reply = (r: LMRequest) => {
      const last = r.messages.at(-1)!;
      if (last.role === "tool") return "<result>\nwaited\n</result>";
      return last.content.includes("wait") ? { toolCalls: [{ name: "slow", input: {} }] } : "<result>\nquick\n</result>";
    };
    const lm = scripted(Array.from({ length: 20 }, () => reply));
    const data = [{ question: "quick" }, { question: "please wait" }, { question: "quick" }, { question: "quick" }];
    let settled = false;
    const run = evaluate(fn.using({ lm }), data, {
      metric: () => 1,
      concurrency: 2,
      onProgress: () => {
        throw new Error("the bar broke");
      },
    }).finally(() => {
      settled = true;
    });
    run.catch(() => {});
    // the quick row ends and its progress throws while the slow row's tool still waits
    await expect.poll(() => lm.requests.length).toBe(2);
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    open();
    await expect(run).rejects.toThrow("the bar broke");
    const sent = lm.requests.length;
    expect(sent).toBe(3); // the slow row's answer, and no row after the throw
    await new Promise((r) => setTimeout(r, 20));
    expect(lm.requests.length).toBe(sent);
  });
});

describe("compare", () => {
  it("pairs rows: diff and its range from the differences, counts of better, worse, same", async () => {
    const q = rows.slice(0, 5);
    const before = await evaluate(status.using({ lm: answers(["x", "delivered", "x", "x", "x"]) }), q, { concurrency: 1 });
    const after = await evaluate(status.using({ lm: answers(["stuck at the carrier", "x", "in the warehouse", "out for delivery", "x"]) }), q, { concurrency: 1 });
    const [c] = compare(before, after);
    expect(c).toMatchObject({ metric: "exact_match", before: 0.2, after: 0.6, better: 3, worse: 1, same: 1, n: 5 });
    expect(c!.diff).toBeCloseTo(0.4, 12);
    expect(c!.low!).toBeLessThan(c!.diff!);
    expect(c!.high!).toBeGreaterThan(c!.diff!);
    expect(() => compare(before, { ...after, rows: after.rows.slice(1) })).toThrow(expect.objectContaining({ code: "input-invalid" }));
  });
});
