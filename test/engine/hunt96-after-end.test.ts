/**
 * Hunt 96: a call the program left running (not awaited) was shown (`tool_call`) and its turn then ended; what the
 * call did afterwards was shown nowhere, as no event follows a turn's end, so the stream showed it running for ever.
 * The runner now ends each call still shown as running with an error `tool_result` before the turn's `done` or
 * `failed` (`TurnRuntime.endUnended`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, tool, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

type Shown = { type: string; path: string; invocation?: number; error?: unknown };

const trail = (seen: TurnEvent[]): string[] =>
  (seen as Shown[])
    .filter((e) => e.type.startsWith("tool_") || ["done", "failed"].includes(e.type))
    .map((e) => (e.invocation === undefined ? `${e.type} ${e.path}` : `${e.type} ${e.path}#${e.invocation}`));

/** A desk whose reading tool waits for `gate` (once `entered`), and a program that starts it and does not wait. */
function world(then: "returns" | "throws") {
  let entered!: () => void;
  const inTool = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const look = tool("look", { description: "Look up.", input: { id: z.string() }, effects: "reads" }, async () => {
    entered();
    await gate;
    return "found";
  });
  const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look] });
  const late: { call?: Promise<unknown> } = {};
  const route = program("route", { description: "Route.", input: { q: z.string() } }, async ({ q }) => {
    late.call = desk(q).catch((e: unknown) => e);
    await inTool;
    if (then === "throws") throw new Error("the other branch broke");
    return "routed";
  });
  const lm = scripted([{ toolCalls: [{ name: "look", input: { id: "A-1" } }] }, "never"]);
  return { route, lm, release, late };
}

async function streamed(w: ReturnType<typeof world>): Promise<TurnEvent[]> {
  const s = w.route.stream("go", { lm: w.lm });
  const seen: TurnEvent[] = [];
  for await (const e of s) seen.push(e);
  w.release(); // the tool finishes after the turn's end
  await w.late.call;
  return seen;
}

describe("a call left running when its turn ends: its tool_result comes before the end", () => {
  it("the program returned: an error tool_result, then done", async () => {
    const seen = await streamed(world("returns"));
    expect(trail(seen)).toEqual(["tool_call route/desk#1", "tool_result route/desk#1", "done route"]);
    expect((seen as Shown[]).find((e) => e.type === "tool_result")).toMatchObject({
      error: expect.stringMatching(/^it did not finish: its turn ended first/),
    });
  });

  it("the program failed: an error tool_result naming the failure, then failed", async () => {
    const seen = await streamed(world("throws"));
    expect(trail(seen)).toEqual(["tool_call route/desk#1", "tool_result route/desk#1", "failed route"]);
    expect((seen as Shown[]).find((e) => e.type === "tool_result")).toMatchObject({
      error: expect.stringMatching(/^it did not finish: the other branch broke/),
    });
  });
});
