/**
 * Hunt 121: the span of a tool call left in doubt (a changing MCP tool whose server went away mid-call: it may have
 * run), then answered by a person (`results`). The engine shows the call to `toolResult` with `needsPerson:
 * { code: "turn-unfinished" }`, documented as "the call is no failure" (src/plugins/types.ts; README: "so a plugin
 * tells that stop from a failure"), and otel() already reads a delegated turn's wait (`turn-waiting`) so. It marked
 * the in-doubt call's span a failed tool call all the same (status ERROR, `error.type` turn-unfinished): a trace
 * showed a refund that may well have gone out as one that failed. Now it ends as a stop for a person:
 * `functai.turn.state` "unfinished", no error; the turn's span (interrupted, turn-unfinished) says why the turn stopped.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore } from "../../src/index.js";
import { deskModel } from "../mcp/fixtures/desk.js";
import { hungDesk } from "./fixtures/hung-desk.js";
import { idOf, one, tracing } from "./tracing.js";

describe("otel() and a tool call in doubt, answered by a person", () => {
  it("its span is a stop for a person, not a failed call; the run the answer resumes links to the first", async () => {
    const desk = await hungDesk();
    const t = tracing();
    const chat = desk.conversation("sam", {
      store: memoryStore(),
      lm: deskModel({ name: "refund", input: { order_id: "HANG", amount: 39 } }),
      plugins: [otel({ tracer: t.tracer, content: true })],
    });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const refund = one(t.spans(), "execute_tool refund");
    expect([refund.attributes["functai.turn.state"], refund.attributes["error.type"], refund.status.code]).toEqual([
      "unfinished",
      undefined,
      SpanStatusCode.UNSET,
    ]);
    const first = one(t.spans(), "invoke_agent desk");
    expect([first.attributes["functai.turn.state"], first.attributes["error.type"]]).toEqual(["interrupted", undefined]); // (a stop for a person is no error: hunt 129)

    t.exporter.reset();
    const [turn] = await chat.turns();
    expect(await turn!.resume({ results: { 1: { refunded: true } } })).toMatch(/refunded/);
    // the person's answer is not a run of the tool: its span says the result was given (hunt 129); the resumed turn's span links to the first
    expect(one(t.spans(), "execute_tool refund").attributes["functai.answered"]).toBe("given");
    const resumed = one(t.spans(), "invoke_agent desk");
    expect(resumed.links.map((l) => l.context.spanId)).toEqual([idOf(first)]);
    expect(resumed.attributes["functai.turn.state"]).toBe("done");
  });
});
