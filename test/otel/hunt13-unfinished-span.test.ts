/**
 * Hunt 13: the span of a tool call that stops its turn. DESIGN ("Outside tools
 * and traces") asks for "one per tool call (`execute_tool <name>` …)", the
 * README for "`execute_tool <name>` for each tool that runs". A changing MCP
 * tool whose server went away mid-call ran (the server logged it), and the
 * turn stops for a person (turn-unfinished): the engine called no `toolResult`
 * hook for a call whose tool stopped the turn, and otel() makes a tool's span
 * only when its result (or a call inside it) comes, so the trace of that turn
 * has no span of the very call a person must now look into.
 *
 * Found by hunt 13 (failed before). The engine (src/engine/tool-calls.ts,
 * `inDoubt`) now calls the `toolResult` hooks, with the reason as the error,
 * for a call whose tool stopped the turn for a person.
 */
import { describe, expect, it } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel } from "../mcp/fixtures/desk.js";
import { hungDesk } from "./fixtures/hung-desk.js";
import { named, one, parentOf, idOf, tracing } from "./tracing.js";

describe("otel() and an MCP call that may have run", () => {
  it("the changing call whose server went away mid-call has its execute_tool span, ended under the interrupted turn's span", async () => {
    const ledger: string[] = [];
    const desk = await hungDesk((line) => ledger.push(line));
    const t = tracing();
    const chat = desk.conversation("sam", {
      store: memoryStore(),
      lm: deskModel({ name: "refund", input: { order_id: "HANG", amount: 39 } }),
      plugins: [otel({ tracer: t.tracer })],
    });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(ledger).toEqual(["refund HANG 39.00"]); // it ran on the server
    const turn = one(t.spans(), "invoke_agent desk");
    expect(turn.attributes["functai.turn.state"]).toBe("interrupted");
    // the call that ran, and that a person must now settle, is in the trace
    const refund = named(t.spans(), "execute_tool refund");
    expect(refund.map(parentOf)).toEqual([idOf(turn)]);
    expect(refund[0]!.attributes).toMatchObject({ "gen_ai.tool.name": "refund", "functai.effects": "changes" });
  });
});
