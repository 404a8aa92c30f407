/**
 * Hunt 46: `evaluate` in a program's turn (a conversation whose rule asks a person about changing tools), whose rows'
 * calls use a changing tool. Each row's call joins the turn, so the rule makes the turn wait for a person; evaluate
 * caught that (the engine's signal that the turn waits, not an error) as the row's failure (`error: waiting for 1
 * approval(s)`, no code), the program went on and the turn ended `done`: nobody was asked, the tool never ran, every
 * row scored 0. Now the turn waits (`Waiting`, listing each row's approval); approved, it goes on: the rows that
 * answered are not paid again, the tools run once each, and the rows keep their order and scores.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, evaluate, program, tool, Waiting, type LMRequest } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const ran: string[] = [];
const ship = tool("ship", { description: "Ship the order.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
  ran.push(order);
  return `shipped ${order}`;
});
const clerk = ai("clerk", { description: "Ship the order, then say what the tool said.", input: { order: z.string() }, tools: [ship] });

const model = () =>
  scripted(
    Array.from({ length: 50 }, () => (r: LMRequest) => {
      const last = r.messages.at(-1)!;
      if (last.role === "tool") return `<result>\n${last.content}\n</result>`;
      const order = /<order>\n?([A-Z]-\d)/.exec(last.content)?.[1] ?? "?";
      return { toolCalls: [{ name: "ship", input: { order } }] };
    }),
  );

const rows = [
  { order: "A-1", result: "shipped A-1" },
  { order: "B-2", result: "shipped B-2" },
  { order: "C-3", result: "shipped C-3" },
];

describe("evaluate in a turn whose rows' tools need a person", () => {
  it("the turn waits for the person (nothing dropped); approved, it goes on and each row scores", async () => {
    ran.length = 0;
    const lm = model();
    const nightly = program(
      "nightly",
      { description: "Measures the clerk.", input: { n: z.number() }, output: z.array(z.string().nullable()) },
      async (_input, ctx) => {
        const ev = await evaluate(clerk, rows, { concurrency: 2, signal: ctx.signal });
        return ev.rows.map((r) => (r.error === null ? String(r.scores.exact_match) : r.error));
      },
    );
    const chat = nightly.conversation("n-1", { store: memoryStore(), lm, approve: "changes" });
    const waited = await chat.send({ n: 1 }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(Waiting);
    // the two rows that ran at once each wait for their ship
    // (the path an approval rule names is the call's as ever: the program's, the function's, the tool's)
    expect((waited as Waiting).approvals.map((a) => [a.name, a.path, a.input])).toEqual([
      ["ship", "nightly/clerk/ship", { order: "A-1" }],
      ["ship", "nightly/clerk/ship", { order: "B-2" }],
    ]);
    expect(ran).toEqual([]);
    expect(lm.requests).toHaveLength(2);

    let turn = (await chat.turns()).at(-1)!;
    const second = await turn.approve({ by: "maria" }).catch((e: unknown) => e);
    // the third row started once the first two went on: its ship waits too
    expect(second).toBeInstanceOf(Waiting);
    expect((second as Waiting).approvals.map((a) => a.input)).toEqual([{ order: "C-3" }]);
    turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toEqual(["1", "1", "1"]);
    expect(ran).toEqual(["A-1", "B-2", "C-3"]);
    // each row: one request asking for the ship, one answering with its result; none paid twice
    expect(lm.requests).toHaveLength(6);
  });
});
