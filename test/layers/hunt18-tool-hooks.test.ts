/**
 * A `toolCall` hook that changes a call's input into one the tool does not
 * take fails the call (`plugin-failed`) before the tool runs (see
 * test/engine/plugins.test.ts, "a plugin's input the tool does not take").
 * The hook is shown the call's live input, though: one that edited it in
 * place, and returned nothing or returned that same object as `{ input }`
 * (`decision.input === input` skipped the check), ran the tool with an input
 * its schema refuses, shown so to the approve function and journaled in the
 * `started` record. An input changed in place is now checked as one handed
 * back is (src/engine/approvals.ts, decideFully).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type ApproveSetting, type Plugin, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { codeOf } from "../store/contract.js";

const setup = (edit: NonNullable<Plugin["hooks"]["toolCall"]>) => {
  const ran: unknown[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order: z.object({ id: z.string() }) }, effects: "changes" }, (i) => {
    ran.push(i);
    return "refunded";
  });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order: { id: "A-1" } } }] }, "Done."]);
  const plugin: Plugin = { name: "edits", version: "1", hooks: { toolCall: edit } };
  return { ran, call: (more: { approve?: ApproveSetting } = {}) => desk("Refund A-1", { lm, plugins: [plugin], ...more }) };
};

describe("a toolCall hook that edits the input in place", () => {
  it("into one the tool does not take, returning nothing: plugin-failed, the tool does not run", async () => {
    const { ran, call } = setup((c) => {
      (c.input as { order: { id: unknown } }).order.id = 42;
    });
    expect(await codeOf(call)).toBe("plugin-failed");
    expect(ran).toEqual([]);
  });

  it("into one the tool does not take, returning it as { input }: plugin-failed, the tool does not run", async () => {
    const { ran, call } = setup((c) => {
      (c.input as { order: { id: unknown } }).order.id = 42;
      return { input: c.input };
    });
    expect(await codeOf(call)).toBe("plugin-failed");
    expect(ran).toEqual([]);
  });

  it("into one the tool takes, returning nothing: the tool runs with it, and the approve function is shown it", async () => {
    const { ran, call } = setup((c) => {
      (c.input as { order: { id: unknown } }).order.id = "B-2";
    });
    const shown: unknown[] = [];
    await call({ approve: (a) => (shown.push(a.input), true) });
    expect(shown).toEqual([{ order: { id: "B-2" } }]);
    expect(ran).toEqual([{ order: { id: "B-2" } }]);
  });
});
