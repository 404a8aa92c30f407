/**
 * Hunt 129: a tool call's span and what a person answered about it, in another process (a fresh store instance,
 * desk and otel() over the same records).
 *
 * - A call left in doubt (a changing MCP call whose server went away mid-call) that a person gave the result of
 *   (`resume({ results })`) had no span in the run that went on with that result: the trace showed a turn that used
 *   a value no call returned. Now its `execute_tool` span says `functai.answered: "given"`, with no error and nothing
 *   under it (the tool did not run). One a person had run again (`rerun`) says `functai.answered: "rerun"`.
 * - A call a person refused (`deny({ by, reason })`) had no span either (no `toolResult` was called). Now its span
 *   says `functai.approval: "refused"`, `functai.approval.by`, and (with `content: true`) `functai.approval.reason`.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { otel } from "../../adapters/otel/index.js";
import { deskModel, linkedClient, makeDesk } from "../mcp/fixtures/desk.js";
import { refusableRefund } from "../fixtures/refusable-refund.js";
import { tempDirs } from "../fixtures/temp-dirs.js";
import { hungDesk } from "./fixtures/hung-desk.js";
import { idOf, one, parentOf, tracing } from "./tracing.js";

const recordsDir = tempDirs("functai-hunt129-otel-");

const refundHang = { name: "refund", input: { order_id: "HANG", amount: 39 } };

/** The desk's refund of HANG left in doubt in a first process; the turn as a second process reads it, traced by its own otel(). */
async function leftInDoubt() {
  const dir = recordsDir();
  const chat = (await hungDesk()).conversation("sam", {
    store: fsStore(dir),
    lm: deskModel(refundHang),
    plugins: [otel({ tracer: tracing().tracer })],
  });
  await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
  const t = tracing();
  const desk = await makeDesk((await linkedClient({ hang: false, record: () => undefined })).client);
  const plugins = [otel({ tracer: t.tracer })];
  const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: deskModel(refundHang), plugins }).turns();
  return { t, turn: turn! };
}

describe("otel(): a call left in doubt that a person answered, in another process", () => {
  it("a result given: its span says so, with no error and nothing under it", async () => {
    const { t, turn } = await leftInDoubt();
    expect(await turn.resume({ results: { 1: { refunded: true } } })).toMatch(/refunded/);
    const refund = one(t.spans(), "execute_tool refund");
    expect([refund.attributes["functai.answered"], refund.status.code, refund.attributes["error.type"]]).toEqual([
      "given",
      SpanStatusCode.UNSET,
      undefined,
    ]);
    expect(parentOf(refund)).toBe(idOf(one(t.spans(), "invoke_agent desk")));
    expect(t.spans().filter((s) => parentOf(s) === idOf(refund))).toEqual([]);
  });

  it("a rerun asked for: the span of the tool run again says so", async () => {
    const { t, turn } = await leftInDoubt();
    await turn.resume({ rerun: [1] });
    expect(one(t.spans(), "execute_tool refund").attributes["functai.answered"]).toBe("rerun");
  });
});

describe("otel(): a call a person refused, in another process", () => {
  it("its span says who refused it, and why (with content)", async () => {
    const dir = recordsDir();
    const { desk, lm } = refusableRefund();
    const chat = desk.conversation("sam", { store: fsStore(dir), lm: lm(), approve: "changes", plugins: [otel({ tracer: tracing().tracer })] });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    const t = tracing();
    const plugins = [otel({ tracer: t.tracer, content: true })];
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: lm(), plugins }).turns();
    expect(await turn!.deny({ by: "maria", reason: "not today" })).toBe("Not refunded.");
    const span = one(t.spans(), "execute_tool refund");
    expect([span.attributes["functai.approval"], span.attributes["functai.approval.by"], span.attributes["functai.approval.reason"]]).toEqual([
      "refused",
      "maria",
      "not today",
    ]);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe("otel(): a run stopped by a call left in doubt", () => {
  // Decision (item 5): stopped for a person (resumable, as a turn that waits), the turn's span is no failure, as the
  // call's own span is none (hunt 121); it ends with the wait event, naming the calls a person must settle.
  it("ends its turn span with a wait event naming the call, not as an error", async () => {
    const t = tracing();
    const chat = (await hungDesk()).conversation("sam", {
      store: fsStore(recordsDir()),
      lm: deskModel(refundHang),
      plugins: [otel({ tracer: t.tracer })],
    });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const turn = one(t.spans(), "invoke_agent desk");
    expect([turn.attributes["functai.turn.state"], turn.attributes["error.type"], turn.status.code]).toEqual([
      "interrupted",
      undefined,
      SpanStatusCode.UNSET,
    ]);
    expect(turn.events.map((e) => [e.name, e.attributes])).toEqual([["functai.wait", { "functai.wait.unfinished": ["desk/refund"], "functai.wait.unfinished_ids": ["desk#1:1"] }]]);
  });
});
