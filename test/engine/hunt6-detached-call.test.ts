/**
 * A call a program's body starts and does not wait for (a timer, a promise
 * left running) after the program returned. src/functions/callable.ts
 * (`nested`): "a call made once its turn was stopped does not begin: a
 * program's body is user code, and would run"; DESIGN ("The journal"): a
 * turn's records are appended in order and its `ended` record is its last
 * (the README: every model reply of a turn is kept, paid once).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, program, tool } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const codeOf = (e: unknown) => (e instanceof FunctaiError ? e.code : String(e));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function world() {
  const REFUNDS: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    REFUNDS.push(order_id);
    return `refunded ${order_id}`;
  });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const late: { outcome: unknown } = { outcome: "not started" };
  const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => {
    // left running: started after the body returned
    setTimeout(() => {
      late.outcome = "started";
      desk(`${message} (follow-up)`).then(
        (v) => (late.outcome = v),
        (e: unknown) => (late.outcome = codeOf(e)),
      );
    }, 10);
    return "routed";
  });
  return { support, REFUNDS, late };
}

describe("a call started by a program's body after its turn ended", () => {
  it("a stopped turn: the call does not begin (as documented), nothing is paid or run", async () => {
    const { support, REFUNDS, late } = world();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "done"]);
    const controller = new AbortController();
    controller.abort();
    expect(codeOf(await support("go", { lm, signal: controller.signal }).catch((e: unknown) => e))).toBe("turn-aborted");
    await sleep(60);
    expect(late.outcome).toBe("not started"); // the body never ran
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });

  // Was a bug: the call found the ended turn's frame (Node's AsyncLocalStorage carries it into the timer) and ran in
  // it: `nested` (src/functions/callable.ts) only refused a turn that was stopped (signal aborted), not one that ended
  // done, so the model was paid and a changing tool ran in the name of a turn whose `ended` record was already
  // written, their `reply` / `tool` records appended after it (and refund ran with no lease held). Now the runner
  // marks its run ended once the outermost call settles (TurnRuntime.ended) and `nested` refuses a call made in it
  // afterwards (`turn-state`: await it in the body, or call it outside the program): nothing is paid, run or written.
  it("a turn that ended done: nothing of the late call is written after the turn's ended record", async () => {
    const { support, REFUNDS, late } = world();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "done"]);
    const store = memoryStore();
    expect(await support.conversation("sam", { store, lm }).send("go")).toBe("routed");
    // until the late call settled (it is answered, or refused)
    for (let i = 0; i < 200 && (late.outcome === "not started" || late.outcome === "started"); i++) await sleep(10);
    await sleep(50); // what it queued, written
    expect(late.outcome).toBe("turn-state");
    const kinds = (await store.read("sam")).map((r) => r.kind);
    expect(kinds.slice(kinds.indexOf("ended") + 1)).toEqual([]);
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });
});
