/**
 * The turn hooks watch, as the model and tool hooks do: each is shown its own copy. A `turnEnd` hook that redacted
 * the approvals of a waiting turn in place (a logger hiding an amount) was handed the engine's own frozen
 * approvals: the edit threw, and the turn that should have waited for a person failed (`plugin-failed`), its
 * question lost for good (no answer could be given). And one plugin's edits to the input or the result it was
 * shown reached the plugins after it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Plugin, type PluginTurnEnd } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("turn hooks that edit what they are shown in place", () => {
  it("a turnEnd hook that redacts the waiting approvals: the turn still waits, and the person's yes runs the call as asked", async () => {
    const paid: number[] = [];
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      paid.push(amount);
      return "paid";
    });
    const logger: Plugin = {
      name: "logger",
      version: "1",
      hooks: {
        turnEnd: (end: PluginTurnEnd) => {
          if (end.state === "waiting") for (const a of end.approvals) (a.input as { amount: unknown }).amount = "(hidden)";
        },
      },
    };
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const waiting = await fn
      .conversation("c1", { store, lm, plugins: [logger], approve: "changes" })
      .send("go")
      .catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    expect((waiting as Waiting).approvals.map((a) => a.input)).toEqual([{ amount: 5 }]);
    const turn = (await fn.conversation("c1", { store, lm, plugins: [logger] }).turns()).at(-1)!;
    expect(turn.waiting.map((a) => a.input)).toEqual([{ amount: 5 }]);
    expect(await turn.approve({ by: "maria" })).toBe("done");
    expect(paid).toEqual([5]);
  });

  it("one plugin's in-place edits of the input and the result reach neither the next plugin nor the caller", async () => {
    const seen: unknown[] = [];
    const redacting: Plugin = {
      name: "redacting",
      version: "1",
      hooks: {
        turnStart: (t) => void ((t.input as { q: string }).q = "(hidden)"),
        turnEnd: (end) => {
          if (end.state === "done") (end.result as { answer: string }).answer = "(hidden)";
        },
      },
    };
    const audit: Plugin = {
      name: "audit",
      version: "1",
      hooks: {
        turnStart: (t) => void seen.push(["start", t.input]),
        turnEnd: (end) => void seen.push(["end", end.input, end.state === "done" ? end.result : end.state]),
      },
    };
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, output: z.object({ answer: z.string() }) });
    const lm = scripted(['<result>\n{"answer":"shipped"}\n</result>']);
    const result = await fn.using({ lm, plugins: [redacting, audit] })("Where is A-1042?");
    expect(result).toEqual({ answer: "shipped" });
    expect(seen).toEqual([
      ["start", { q: "Where is A-1042?" }],
      ["end", { q: "Where is A-1042?" }, { answer: "shipped" }],
    ]);
  });
});
