/**
 * `ctx.show(value)`: a tool hands the person something the model is not
 * shown. It goes with the call's result (the stream's `tool_result` event,
 * the turn's `done` record), never into the model's messages; a resumed turn
 * does not show it again. Before, a tool had one output, which the model was
 * shown: what was meant for the person alone (an MCP part whose audience is
 * the user) reached no one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, parseRecord, tool, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const CHARGE = { toolCalls: [{ name: "charge", input: { amount: 39 } }] };

function desk(body: (ctx: Parameters<Parameters<typeof tool>[2]>[1]) => unknown) {
  const charge = tool("charge", { description: "Charge the card.", input: { amount: z.number() }, effects: "changes" }, (_i, ctx) => body(ctx));
  return ai("desk", { description: "Help.", input: { message: z.string() }, tools: [charge] });
}

async function events(s: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const seen: TurnEvent[] = [];
  for await (const e of s) seen.push(e);
  return seen;
}

describe("ctx.show", () => {
  it("reaches the person (the tool_result event and the done record), never the model", async () => {
    const store = memoryStore();
    const lm = scripted([CHARGE, "Charged."]);
    const fn = desk((ctx) => {
      ctx.show("Card ending 4242 charged 39.00");
      ctx.show({ receipt: "R-1", lines: [1, 2] });
      return "charged";
    });
    const s = fn.conversation("sam", { store, lm, approve: null }).stream("Charge me.");
    const seen = await events(s);
    expect(await s).toBe("Charged.");
    const result = seen.find((e) => e.type === "tool_result");
    expect(result).toMatchObject({ name: "charge", output: "charged", shown: ["Card ending 4242 charged 39.00", { receipt: "R-1", lines: [1, 2] }] });
    expect(toolResults(lm.requests[1])).toEqual([["charge", "charged"]]);
    expect(JSON.stringify(lm.requests)).not.toContain("4242");
    const done = (await store.read("sam")).find((r) => r.kind === "tool" && r.state === "done");
    expect(done).toMatchObject({ output: "charged", shown: ["Card ending 4242 charged 39.00", { receipt: "R-1", lines: [1, 2] }] });
  });

  it("keeps each value as it was when shown, and a tool that shows nothing has no `shown`", async () => {
    const receipt = { total: 39 };
    const fn = desk((ctx) => {
      ctx.show(receipt);
      receipt.total = 0;
      return "charged";
    });
    const shown = (await events(fn.stream("Charge me.", { lm: scripted([CHARGE, "ok"]), approve: null }))).find((e) => e.type === "tool_result");
    expect(shown).toMatchObject({ shown: [{ total: 39 }] });
    const quiet = desk(() => "charged");
    const plain = (await events(quiet.stream("Charge me.", { lm: scripted([CHARGE, "ok"]), approve: null }))).find((e) => e.type === "tool_result");
    expect(plain).not.toHaveProperty("shown");
  });

  it("goes with a tool that failed after showing, too", async () => {
    const fn = desk((ctx) => {
      ctx.show("half done");
      throw new Error("the card was declined");
    });
    const lm = scripted([CHARGE, "Sorry."]);
    const result = (await events(fn.stream("Charge me.", { lm, approve: null }))).find((e) => e.type === "tool_result");
    expect(result).toMatchObject({ error: "the card was declined", shown: ["half done"] });
    expect(JSON.stringify(lm.requests[1])).not.toContain("half done");
  });

  it("refuses what JSON cannot keep (the tool fails, the model is told), and a show after the tool returned (turn-state)", async () => {
    let late: ((v: unknown) => void) | undefined;
    const fn = desk((ctx) => {
      late = (v) => ctx.show(v);
      ctx.show(new Map([["a", 1]]));
      return "charged";
    });
    const lm = scripted([CHARGE, "Sorry."]);
    await fn("Charge me.", { lm, approve: null });
    expect(toolResults(lm.requests[1])[0]![1]).toMatch(/ctx\.show was given what JSON cannot keep \(a Map is written as \{\}\)/);
    expect(() => late!("too late")).toThrow(
      expect.objectContaining({ code: "turn-state", message: expect.stringMatching(/after desk\/charge returned/) }),
    );
  });

  it("a turn that waited for a person and ran on elsewhere keeps what was shown in its record", async () => {
    const store = memoryStore();
    let runs = 0;
    const fn = desk((ctx) => {
      runs++;
      ctx.show("Card ending 4242");
      return "charged";
    });
    const lm = scripted([CHARGE, "Charged."]);
    const waiting = await fn
      .conversation("sam", { store, lm, approve: "changes" })
      .send("Charge me.")
      .catch((e: unknown) => e);
    expect(waiting).toMatchObject({ code: "turn-waiting" });
    const [turn] = await fn.conversation("sam", { store, lm }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Charged.");
    expect(runs).toBe(1);
    const done = (await store.read("sam")).filter((r) => r.kind === "tool" && r.state === "done");
    expect(done).toMatchObject([{ output: "charged", shown: ["Card ending 4242"] }]);
    expect(JSON.stringify(lm.requests)).not.toContain("4242");
  });

  it("a tool record whose `shown` is not a list is refused, never misread", () => {
    const base = {
      functai_conversation: 1,
      kind: "tool",
      at: "2026-12-05T12:00:00.000Z",
      seq: 3,
      turn: "01JX0000000000000000000000",
      site: "desk#1",
      invocation: 1,
      name: "charge",
      state: "done",
      output: "charged",
    };
    expect(parseRecord({ ...base, shown: ["Card ending 4242"] })).toMatchObject({ ok: true });
    expect(parseRecord({ ...base, shown: "Card ending 4242" })).toMatchObject({ ok: false, error: expect.stringMatching(/shown/) });
  });
});
