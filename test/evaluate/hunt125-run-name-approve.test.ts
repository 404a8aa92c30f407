/**
 * `evaluate` with a `store`, in a program's turn, names its run by what decides the rows' replies (hunt 75), an
 * approve rule among them, so the turn run again finds the rows it paid for only when they would be answered
 * the same. Since hunt 120 a row's conversation takes the turn's `approve` (and since hunt 125 its plugins), but
 * the run was still named by the function's own `approve` and configure's: the turn's rule was not in the name.
 * A turn resumed from a handle with another rule (the refund no longer asked about) ran the same-named run: each
 * row answered from its conversation's turn made under the old rule (still waiting for a person), and failed
 * `turn-waiting` under a rule that does not ask. Now the rule in effect names the run: another rule, another run.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program, Waiting, type LMRequest } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { refundClerk } from "./fixtures/refund-clerk.js";
import { report } from "./fixtures/report-turn.js";

const { refunds, clerk } = refundClerk();

/** Refunds the order it is given and says what the tool said; sends the report it is asked to. */
const brain = (r: LMRequest) => {
  const last = r.messages.at(-1)!;
  if (last.role === "tool") return `<result>\n${last.content}\n</result>`;
  if (last.content.startsWith("<text>")) return { toolCalls: [{ name: "send_report", input: { text: "ok" } }] };
  return { toolCalls: [{ name: "refund", input: { order: /<order>\n?([A-Z]-\d)/.exec(last.content)?.[1] ?? "?" } }] };
};

describe("evaluate with a store, in a turn resumed under another approve rule", () => {
  it("the run is named by the rule in effect: the rows run again under it", async () => {
    const lm = scripted(Array.from({ length: 20 }, () => brain));
    const store = memoryStore();
    const runs: string[] = [];
    const errors: (string | null)[][] = [];
    const nightly = program(
      "nightly",
      { description: "Measures the clerk, then reports.", input: { n: z.number() }, output: z.number() },
      async () => {
        const ev = await evaluate(clerk.using({ lm }), [{ order: "A-1", result: "refunded A-1" }], { store });
        runs.push(ev.run);
        errors.push(ev.rows.map((r) => r.error));
        await report({ text: "the nightly run" });
        return ev.score ?? -1;
      },
    );
    // every changing tool asked about: the row's refund waits (the row fails), then the report waits
    const first = nightly.conversation("nightly-1", { store, lm, approve: "changes" });
    expect(await first.send({ n: 1 }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    expect(errors[0]![0]).toMatch(/^turn-waiting: /);
    expect(refunds).toEqual([]);
    // answered from a handle whose rule asks about the report only
    const second = nightly.conversation("nightly-1", { store, lm, approve: ["send_report"] });
    const score = await (await second.turns()).at(-1)!.approve({ by: "maria" });
    expect(runs[1]).not.toBe(runs[0]);
    expect(errors[1]).toEqual([null]);
    expect(refunds).toEqual(["A-1"]);
    expect(score).toBe(1);
  });
});
