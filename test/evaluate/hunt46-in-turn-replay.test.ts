/**
 * Hunt 46: `evaluate` in a program's turn (a conversation on a store), rows at once (`concurrency` > 1) and a judge
 * metric that calls a model. The turn waits for a person after the run; approved, it goes on by running the program
 * again, each model request finding its recorded reply (matched by a fingerprint that holds the call's site, e.g.
 * `nightly#1/judge#2`). The judges' sites were numbered in the order the rows' calls happened to end: a run whose
 * replies came back in another order (replayed replies come at once) gave the judge of row 1 the site the judge of
 * row 2 had, found no recorded reply, and paid every judge again.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { beforeGenerate } from "../fixtures/before-generate.js";
import { ai, evaluate, program, tool, Waiting, type LMRequest } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const echo = ai("echo", { description: "Say the word back.", input: { q: z.string() } });
const judge = ai("judge", { description: "Score the answer from 0 to 1.", input: { answer: z.string() }, output: z.number() });
const sent: string[] = [];
const send = tool("send_report", { description: "Send the report.", input: { text: z.string() }, effects: "changes" }, ({ text }) => {
  sent.push(text);
  return "sent";
});
const report = ai("report", { description: "Send the report.", input: { text: z.string() }, tools: [send] });

const rows = [
  { q: "alpha", result: "alpha" },
  { q: "bravo", result: "bravo" },
  { q: "charlie", result: "charlie" },
  { q: "delta", result: "delta" },
];

/** The last user message's text. */
const lastUser = (r: LMRequest): string => {
  const m = [...r.messages].reverse().find((x) => x.role === "user");
  return m?.role === "user" ? m.content : "";
};

/**
 * A model that reads what it is sent: echo says the word back (row 1's reply is slow the first time, so the rows end
 * out of order), judge gives 1 for a word with an "a" in its second letter's place and 0.5 otherwise, report calls its
 * tool. Every request it is sent is kept.
 */
function world() {
  const requests: LMRequest[] = [];
  const inner = scripted(
    Array.from({ length: 100 }, () => (r: LMRequest) => {
      const text = lastUser(r);
      const system = r.messages[0]?.role === "system" ? r.messages[0].content : "";
      if (r.messages.at(-1)?.role === "tool") return "<result>\ndone\n</result>";
      if (system.includes("Send the report")) return { toolCalls: [{ name: "send_report", input: { text: "ok" } }] };
      const word = /<(?:q|answer)>\n?([a-z]+)/.exec(text)?.[1] ?? "?";
      if (system.includes("Score the answer")) return `<result>\n${word.startsWith("a") || word.startsWith("c") ? 1 : 0.5}\n</result>`;
      return `<result>\n${word}\n</result>`;
    }),
  );
  let slowOnce = true;
  const lm = beforeGenerate(inner, async (request) => {
    requests.push(request);
    if (slowOnce && lastUser(request).includes("alpha") && !lastUser(request).includes("<answer>")) {
      slowOnce = false;
      await sleep(60);
    }
  });
  return { lm, requests };
}

describe("evaluate with a judge, rows at once, in a turn that goes on after a person answers", () => {
  it("the run again pays no model reply twice; rows keep their order and scores", async () => {
    const { lm, requests } = world();
    const nightly = program(
      "nightly",
      { description: "Measures echo, then sends a report.", input: { n: z.number() }, output: z.array(z.number()) },
      async (_input, ctx) => {
        const ev = await evaluate(echo, rows, {
          concurrency: 4,
          signal: ctx.signal,
          metric: async (_row, p) => judge({ answer: String(p.result) }),
        });
        await report({ text: `score ${ev.score}` });
        return ev.rows.map((r) => r.scores.score!);
      },
    );
    const store = memoryStore();
    const chat = nightly.conversation("nightly-1", { store, lm, approve: "changes" });
    const waited = await chat.send({ n: 1 }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(Waiting);
    // 4 echo replies, 4 judge replies, the report's tool call
    expect(requests).toHaveLength(9);
    const before = requests.length;
    const turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toEqual([1, 0.5, 1, 0.5]);
    // the run again took each recorded reply: only the report's answer (after its tool's result) was paid
    const again = requests.slice(before);
    expect(again.filter((r) => r.messages[0]?.role === "system" && r.messages[0].content.includes("Score the answer"))).toEqual([]);
    expect(again).toHaveLength(1);
    expect(again[0]!.messages.at(-1)!.role).toBe("tool");
    expect(sent).toEqual(["ok"]);
  });
});
