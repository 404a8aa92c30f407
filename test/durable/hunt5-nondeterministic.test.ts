/**
 * Hunt: program bodies that are not deterministic between runs. A program's
 * turn waits for a person (the ship at the end needs an approval), and when
 * it is answered its body runs again, this time calling another AI
 * function, the same ones in another order, or the same one with another
 * input. DESIGN ("Resuming"): a request it made before gets its recorded
 * reply; "a request that differs is sent anew: it costs, never misleads";
 * a tool call finds its recorded result by site and invocation. So no call
 * may be given another call's recorded reply or result.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { memoryStore, program, Waiting, type Message } from "../../src/index.js";
import { lines, model, world } from "./fixtures/hunt5-world.js";

/** A world in a fresh folder: its effects and requests logs, and the model that writes the latter. */
function setup() {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt5-nd-"));
  const files = { effects: join(dir, "effects.log"), requests: join(dir, "requests.log") };
  return { files, w: world(files), lm: model(files.requests), sent: [] as Message[][] };
}

type Body = (run: number, w: ReturnType<typeof world>) => Promise<string>;

/**
 * Sends a program whose body is `body(run)` (run 1, then 2 once answered): it waits for the ship's approval,
 * a person says yes, and the body runs again. The answer, and every request the model was sent.
 */
async function twoRuns(body: Body) {
  const { files, w, lm } = setup();
  const sent: Message[][] = [];
  const logged = { ...lm, generate: (request: Parameters<typeof lm.generate>[0], options: Parameters<typeof lm.generate>[1]) => (sent.push(request.messages.slice()), lm.generate(request, options)) };
  let run = 0;
  const flow = program("flow", { description: "Changes between runs.", input: { order: z.string() } }, () => body(++run, w));
  const chat = flow.conversation("nd", { store: memoryStore(), lm: logged, approve: ["ship"] });
  const first = await chat.send("A-1").catch((e: unknown) => e);
  expect(first).toBeInstanceOf(Waiting);
  const [turn] = await chat.turns();
  const answer: unknown = await turn!.approve({ by: "maria" }).catch((e: unknown) => e);
  return { answer, runs: run, effects: lines(files.effects).map((l) => l.split(":").slice(0, 2).join(":")), sent };
}

/**
 * Each tool result a request shows the model, beside the call it answers: a result is for the order its call named
 * (every tool here answers "<tool> done for <order>"), unless a person gave it.
 */
function misread(sent: Message[][]): string[] {
  const wrong: string[] = [];
  for (const messages of sent)
    for (const m of messages) {
      if (m.role !== "tool") continue;
      const call = messages.flatMap((x) => (x.role === "assistant" ? (x.toolCalls ?? []) : [])).find((c) => c.id === m.toolCallId)!;
      const order = (call.input as { order: string }).order;
      if (!m.content.endsWith(`done for ${order}`)) wrong.push(`${call.name}(${order}) was answered ${JSON.stringify(m.content)}`);
    }
  return [...new Set(wrong)];
}

/** Requests per function (each request once: a request sent twice is a reply paid twice). */
const byFunction = (sent: Message[][]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const messages of sent) {
    const fn = /^Function: (\S+)/.exec(messages[0]!.content)![1]!;
    out[fn] = (out[fn] ?? 0) + 1;
  }
  return out;
};

describe("a program's body that changes between runs", () => {
  it("runs the same calls in another order: each finds its own replies and results; nothing is paid or run twice", async () => {
    const r = await twoRuns(async (run, { first, second }) => {
      if (run === 1) return `${await first("A-1")} | ${await second("A-1")}`;
      const shipped = await second("A-1");
      return `${await first("A-1")} | ${shipped}`;
    });
    expect(r.runs).toBe(2);
    expect(r.answer).toBe("first heard: pay done for A-1 | second heard: ship done for A-1");
    expect(r.effects).toEqual(["pay:A-1", "ship:A-1"]);
    expect(misread(r.sent)).toEqual([]);
    expect(byFunction(r.sent)).toEqual({ first: 2, second: 2 }); // only the ship's answer was paid after the approval
    expect(new Set(r.sent.map((m) => JSON.stringify(m))).size).toBe(r.sent.length);
  });

  it("calls another AI function where it called one before: that call is new (its request sent, its tool run), never given the other's reply or result", async () => {
    const r = await twoRuns(async (run, { first, second, clerk }) => `${await (run === 1 ? first : clerk)("A-1")} | ${await second("A-1")}`);
    expect(r.answer).toBe("clerk heard: charge done for A-1 | second heard: ship done for A-1");
    expect(r.effects).toEqual(["pay:A-1", "charge:A-1", "ship:A-1"]);
    expect(misread(r.sent)).toEqual([]);
    expect(byFunction(r.sent)).toEqual({ first: 2, second: 2, clerk: 2 });
  });

  it("calls the same AI function with the same input once more than before: the new occurrence is a new call", async () => {
    const r = await twoRuns(async (run, { first, second }) => {
      const paid = await first("A-1");
      const again = run === 2 ? ` + ${await first("A-1")}` : "";
      return `${paid}${again} | ${await second("A-1")}`;
    });
    expect(r.answer).toBe("first heard: pay done for A-1 + first heard: pay done for A-1 | second heard: ship done for A-1");
    expect(r.effects).toEqual(["pay:A-1", "pay:A-1", "ship:A-1"]);
    expect(misread(r.sent)).toEqual([]);
  });

  // FIXED (it was a bug): a request sent anew (its input changed) whose reply calls the same tool at the same place
  // (site and invocation) with another input was given the recorded result of the call made there before, and the
  // tool did not run: the model was told "pay done for A-1" for its pay of B-2. src/engine/tool-calls.ts prepare()
  // took the `done` record journal.tool(site, invocation) found, checking only the tool's name. Now a call of a reply
  // paid anew takes a place's record only when its input is the one the record kept (a changing tool's `started`
  // keeps it; the journal carries it to the later records): another input stops the turn (turn-state), nothing
  // runs, as another tool's name at that place does. (A tool that only reads keeps no input: it runs again.)
  it("calls the same AI function with another input: its request is sent anew, its tool call is never given the earlier call's result; the turn stops, nothing runs", async () => {
    const r = await twoRuns(async (run, { first, second }) => `${await first(run === 1 ? "A-1" : "B-2")} | ${await second("A-1")}`);
    expect(r.answer).toMatchObject({ code: "turn-state", message: expect.stringContaining('"B-2"') });
    expect(byFunction(r.sent).first).toBe(3); // sent anew: it costs (the first run's two, then B-2's first step)
    expect(misread(r.sent)).toEqual([]); // never misleads
    expect(r.effects).toEqual(["pay:A-1"]); // B-2 was not paid at A-1's place, A-1 not again
  });

  // FIXED (the same cause as above): two calls of one AI function swapped between runs each got the other's
  // recorded tool result; now the first of them stops the turn, and nothing runs.
  it("calls one AI function twice with two inputs, swapped: no call's tool gets the other's result; the turn stops, nothing runs", async () => {
    const r = await twoRuns(async (run, { first, second }) => {
      const [x, y] = run === 1 ? ["A-1", "B-2"] : ["B-2", "A-1"];
      return `${await first(x)} / ${await first(y)} | ${await second("A-1")}`;
    });
    expect(r.answer).toMatchObject({ code: "turn-state" });
    expect(misread(r.sent)).toEqual([]);
    expect(r.effects).toEqual(["pay:A-1", "pay:B-2"]);
  });
});
