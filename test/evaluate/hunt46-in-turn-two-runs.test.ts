/**
 * Hunt 46: two `evaluate` runs of one function at once in a program's turn (`Promise.all`). Each row's call joined
 * the turn in the program's own place, numbered by the order the calls began (`nightly#1/echo#3`); the two runs' rows
 * began in an order the model's reply times decided, so a run of the turn again (after a person's answer, or a crash)
 * numbered them otherwise, found none of their recorded replies and paid every row again. Each row's call is made in
 * a place of the row's own (`nightly#1/(evaluate)#2/row#3/echo#1`) now.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { beforeGenerate } from "../fixtures/before-generate.js";
import { ai, evaluate, program, tool, Waiting, type LMRequest } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const echo = ai("echo", { description: "Say the word back.", input: { q: z.string() } });
const send = tool("send_report", { description: "Send the report.", input: { text: z.string() }, effects: "changes" }, () => "sent");
const report = ai("report", { description: "Send the report.", input: { text: z.string() }, tools: [send] });

const lastUser = (r: LMRequest): string => {
  const m = [...r.messages].reverse().find((x) => x.role === "user");
  return m?.role === "user" ? m.content : "";
};

describe("two runs of one function at once, in a turn that goes on after a person answers", () => {
  it("the turn run again pays no row twice", async () => {
    const inner = scripted(
      Array.from({ length: 100 }, () => (r: LMRequest) => {
        const last = r.messages.at(-1)!;
        if (last.role === "tool") return "<result>\ndone\n</result>";
        if (last.content.startsWith("<text>")) return { toolCalls: [{ name: "send_report", input: { text: "ok" } }] };
        return `<result>\n${/<q>\n?([a-z0-9]+)/.exec(last.content)?.[1]}\n</result>`;
      }),
    );
    let first = true;
    const requests: LMRequest[] = [];
    const lm = beforeGenerate(inner, async (request) => {
      requests.push(request);
      // the first run's rows are slow the first time: the second run's rows begin in between
      if (first && lastUser(request).includes("<q>\na")) await sleep(30);
    });
    const a = ["a1", "a2", "a3"].map((q) => ({ q, result: q }));
    const b = ["b1", "b2", "b3"].map((q) => ({ q, result: q }));
    const nightly = program(
      "nightly",
      { description: "Measures echo twice, then sends a report.", input: { n: z.number() }, output: z.array(z.number().nullable()) },
      async () => {
        const [ea, eb] = await Promise.all([evaluate(echo, a, { concurrency: 1 }), evaluate(echo, b, { concurrency: 1 })]);
        await report({ text: "done" });
        return [ea.score, eb.score];
      },
    );
    const chat = nightly.conversation("two-1", { store: memoryStore(), lm, approve: "changes" });
    expect(await chat.send({ n: 1 }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    first = false;
    expect(requests).toHaveLength(7);
    const turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toEqual([1, 1]);
    expect(
      requests
        .slice(7)
        .map(lastUser)
        .filter((t) => t.startsWith("<q>")),
    ).toEqual([]);
    expect(requests).toHaveLength(8);
  });
});
