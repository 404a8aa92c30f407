/**
 * Hunt 96: a turn's stream showed a call's `tool_call` and never its `tool_result` (a UI that shows calls by those
 * two events showed it running for ever) when the call was refused before its tool ran, past hunt 89's hooks:
 * the run had already ended (a call left running); or
 * when what stops the turn broke out of the tool's body (a nested call's plugin failed). Each such call now gets
 * an error `tool_result` ("it did not run: …", or "it did not finish: …" for a body cut short) before the turn's
 * end event, through hunt 89's `showUnrun`. What the call rejects with, and the records, are unchanged. A store
 * that refused a changing tool's `started` record ends the turn resumable, so that call shows no result (decided).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type FunctaiError, ai, memoryStore, program, tool, type Plugin, type Store, type TurnEvent } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { events } from "../fixtures/stream-events.js";

type Shown = { type: string; path: string; invocation?: number; error?: unknown };

/** The stream's tool events and its end, as `type path#invocation`. */
const trail = (seen: TurnEvent[]): string[] =>
  (seen as Shown[])
    .filter((e) => e.type.startsWith("tool_") || ["done", "failed", "interrupted", "stopped"].includes(e.type))
    .map((e) => (e.invocation === undefined ? `${e.type} ${e.path}` : `${e.type} ${e.path}#${e.invocation}`));

const resultOf = (seen: TurnEvent[], path: string) => (seen as Shown[]).find((e) => e.type === "tool_result" && e.path === path);

function refundTool() {
  const refunds: number[] = [];
  const refund = tool("refund", { description: "Refunds.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    refunds.push(amount);
    return `refunded ${amount}`;
  });
  return { refund, refunds };
}

const isStarted = (r: object): boolean => (r as { kind?: unknown }).kind === "tool" && (r as { state?: unknown }).state === "started";
const isEnded = (r: object): boolean => (r as { kind?: unknown }).kind === "ended";

describe("a call refused before its tool ran still ends in the stream", () => {
  // decided: a store that fails the turn's own records ends it interrupted, resumable as a lost lease is; its
  // shown calls stay open (the next run shows them), as a lost lease's do
  it("the store refuses the changing tool's started record: no tool_result, the turn ends interrupted (resumable)", async () => {
    const { refund, refunds } = refundTool();
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund] });
    const store = faultyStore(memoryStore(), { failOn: (call) => (call.records.some(isStarted) ? "before-write" : undefined) });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "never"]);
    const { seen, error } = await events(desk.conversation("c", { store, lm }).stream("Refund A-1"));
    expect(trail(seen)).toEqual(["tool_call desk#1", "interrupted desk"]);
    expect((error as FunctaiError).code).toBe("store-io");
    expect(refunds).toEqual([]);
  });

  it("a call the program left running, refused once its run ended: its tool_result comes before done", async () => {
    const { refund, refunds } = refundTool();
    let entered!: () => void;
    const inHook = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // holds the call in its toolCall hook until the program has returned
    const slow: Plugin = {
      name: "slow",
      version: "1",
      hooks: {
        toolCall: async () => {
          entered();
          await gate;
        },
      },
    };
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund], plugins: [slow] });
    let late: Promise<unknown> | undefined;
    const route = program("route", { description: "Route.", input: { q: z.string() } }, async ({ q }) => {
      late = desk(q).catch((e: unknown) => e); // left running: not awaited
      await inHook;
      return "routed";
    });
    // the turn's `ended` record is written once its run ended: the held call is let go then, and is refused
    const inner = memoryStore();
    const store: Store = {
      read: (c, after) => inner.read(c, after),
      append: async (c, records, opts) => {
        if (records.some(isEnded)) {
          release();
          await late;
        }
        return inner.append(c, records, opts);
      },
    };
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "never"]);
    const { seen, error } = await events(route.conversation("c", { store, lm }).stream("Refund A-1"));
    expect(error).toBeUndefined();
    expect(trail(seen)).toEqual(["tool_call route/desk#1", "tool_result route/desk#1", "done route"]);
    expect(resultOf(seen, "route/desk")).toMatchObject({ error: expect.stringMatching(/^it did not run: a call left running/) });
    expect(((await late) as FunctaiError).code).toBe("turn-state");
    expect(refunds).toEqual([]);
  });

  it("a nested call's plugin fails inside the tool's body: the outer call's tool_result says it did not finish", async () => {
    const { refund, refunds } = refundTool();
    const guard: Plugin = {
      name: "guard",
      version: "1",
      hooks: {
        toolCall: () => {
          throw new Error("policy service down");
        },
      },
    };
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [refund], plugins: [guard] });
    const ask = tool("ask_billing", { description: "Ask billing.", input: { request: z.string() }, effects: "reads" }, ({ request }) =>
      billing(request),
    );
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [ask] });
    const lm = scripted([
      { toolCalls: [{ name: "ask_billing", input: { request: "refund 39" } }] },
      { toolCalls: [{ name: "refund", input: { amount: 39 } }] },
      "never",
      "never",
    ]);
    const { seen, error } = await events(desk.stream("Refund A-1", { lm }));
    expect(trail(seen)).toEqual([
      "tool_call desk#1",
      "tool_call desk/ask_billing/billing#1",
      "tool_result desk/ask_billing/billing#1",
      "tool_result desk#1",
      "failed desk",
    ]);
    expect(resultOf(seen, "desk")).toMatchObject({ error: expect.stringMatching(/^it did not finish: plugin guard failed .*policy service down/) });
    expect((error as FunctaiError).code).toBe("plugin-failed");
    expect(refunds).toEqual([]);
    expect(lm.requests).toHaveLength(2);
  });
});
