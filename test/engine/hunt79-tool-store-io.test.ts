/**
 * A tool whose own database is down throws its own `FunctaiError("store-io")`. Under the default
 * `toolErrors: "report"` the model must be shown that error, as any tool error: the engine decided "a store
 * failure ends the turn" by the error's code alone, so the whole turn failed instead. It is decided by where the
 * error came from (functai's own store calls mark theirs: src/store/failures.ts); a failure of the turn's own
 * journal still stops the turn, as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const desk = (body: () => unknown, effects: "reads" | "changes" = "reads") => {
  const runs = { n: 0 };
  const lookup = tool("lookup", { description: "Look up.", input: { id: z.string() }, effects }, () => {
    runs.n++;
    return body();
  });
  return { fn: ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] }), runs };
};

describe("a tool that throws its own store-io", () => {
  it("toolErrors report: the model is shown the tool's error, and the turn goes on to its answer", async () => {
    const { fn, runs } = desk(() => {
      throw new FunctaiError("store-io", "orders database unreachable");
    });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "A-1" } }] }, "sorry, the orders database is down"]);
    expect(await fn.conversation("c", { store, lm }).send("where is A-1?")).toBe("sorry, the orders database is down");
    const [[name, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(name).toBe("lookup");
    expect(content).toMatch(/^Error: .*orders database unreachable/);
    expect(runs.n).toBe(1);
    const [turn] = await fn.conversation("c", { store }).turns();
    expect(turn!.state).toBe("done");
  });

  it("a plain call (no store) too: the model is shown it", async () => {
    const { fn } = desk(() => {
      throw new FunctaiError("store-conflict", "orders row changed under us");
    });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "A-1" } }] }, "retry later"]);
    expect(await fn.using({ lm })("where is A-1?")).toBe("retry later");
    expect(toolResults(lm.requests[1])[0]![1]).toMatch(/orders row changed under us/);
  });

  it("the turn's own journal failing inside a tool's body (a nested call's started record refused) still stops the turn", async () => {
    const refunds: number[] = [];
    const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      refunds.push(amount);
      return "refunded";
    });
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [refund] });
    // a tool whose body makes a call of the same turn (its records go to the turn's own journal)
    const ask = tool("ask_billing", { description: "Ask billing.", input: { request: z.string() }, effects: "reads" }, ({ request }) =>
      billing(request),
    );
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [ask] });
    const isStarted = (r: object): boolean => (r as { kind?: unknown }).kind === "tool" && (r as { state?: unknown }).state === "started";
    const store = faultyStore(memoryStore(), { failOn: (call) => (call.records.some(isStarted) ? "before-write" : undefined) });
    const lm = scripted([
      { toolCalls: [{ name: "ask_billing", input: { request: "refund 39" } }] },
      { toolCalls: [{ name: "refund", input: { amount: 39 } }] },
      "refunded",
      "done",
    ]);
    const err = await fn
      .conversation("j", { store, lm })
      .send("go")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("store-io");
    expect(refunds).toEqual([]);
    // the desk's model was never shown the store's failure as the tool's error
    expect(lm.requests).toHaveLength(2);
    const [turn] = await fn.conversation("j", { store: store.inner }).turns();
    expect(turn!.state).toBe("interrupted");
  });
});
