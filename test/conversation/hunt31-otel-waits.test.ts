/**
 * Hunt 31: otel() reads PluginToolResult.needsPerson. A calling turn whose
 * only delegate call was refused because a turn in its delegated
 * conversation already waits (conversation-busy: no delegated turn of its
 * own ended waiting, where otel() learnt of waits before) ends its span as
 * a wait for those approvals, not as an error; and two calls stopped for
 * the same approvals list them once.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, delegate, memoryStore, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, one, tracing } from "../otel/tracing.js";

function world() {
  const refund = tool(
    "refund",
    { description: "Refund.", input: { order_id: z.string() }, effects: "changes" },
    ({ order_id }) => `refunded ${order_id}`,
  );
  const billing = ai("billing", { description: "Billing.", input: { question: z.string() }, tools: [refund] });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
  return { billing, desk };
}

const waitOf = (span: ReturnType<typeof one>) => span.events.find((e) => e.name === "functai.wait")?.attributes?.["functai.wait.approvals"];

describe("otel(): a delegate call refused because its conversation waits", () => {
  it("two calls in one step, one waiting and one refused: the calling turn's span lists the approval once", async () => {
    const t = tracing();
    const { desk } = world();
    const lm = scripted([
      {
        toolCalls: [
          { name: "billing", input: { question: "Refund A-1" } },
          { name: "billing", input: { question: "Refund A-2" } },
        ],
      },
      (request) => ({ toolCalls: [{ name: "refund", input: { order_id: /A-\d/.exec(request.messages.at(-1)!.content)![0] } }] }),
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["refund"], plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Refund both")).rejects.toBeInstanceOf(Waiting);
    const caller = one(t.spans(), "invoke_agent desk");
    expect([caller.status.code, caller.attributes["error.type"]]).toEqual([0, undefined]);
    expect(waitOf(caller)).toEqual(["billing/refund"]);
  });

  it("the calling turn's only call refused (an earlier caller turn's delegated turn waits there): its span is a wait for those approvals", async () => {
    const t = tracing();
    const { desk } = world();
    const store = memoryStore();
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { question: "Refund A-1" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
      { toolCalls: [{ name: "billing", input: { question: "Refund A-2" } }] },
    ]);
    const chat = desk.conversation("sam", { store, lm, approve: ["refund"], plugins: [otel({ tracer: t.tracer })] });
    const first = await chat.send("Refund A-1").catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Waiting);
    await (first as Waiting).turn.abandon(); // the caller's turn ends; its delegated turn still waits in sam.billing
    t.exporter.reset();
    const second = await chat.send("Refund A-2").catch((e: unknown) => e);
    expect(second).toBeInstanceOf(Waiting);
    expect((second as Waiting).delegated).toEqual((first as Waiting).delegated); // refused there: what waits is the first's
    const tools = named(t.spans(), "execute_tool billing");
    expect(tools).toHaveLength(1);
    expect([tools[0]!.status.code, tools[0]!.attributes["functai.turn.state"]]).toEqual([0, "waiting"]);
    const caller = one(t.spans(), "invoke_agent desk");
    expect([caller.status.code, caller.attributes["error.type"]]).toEqual([0, undefined]);
    expect(waitOf(caller)).toEqual(["billing/refund"]);
  });
});
