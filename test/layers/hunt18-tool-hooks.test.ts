/**
 * A `toolCall` hook that changes a call's input into one the tool does not
 * take fails the call (`plugin-failed`) before the tool runs (see
 * test/engine/plugins.test.ts, "a plugin's input the tool does not take").
 * The hook is shown the call's live input, though: one that edits it in
 * place, and returns nothing or returns that same object as `{ input }`
 * (`decision.input === input` skips the check), runs the tool with an input
 * its schema refuses, shown so to the approve function and journaled in the
 * `started` record.
 *
 * it.fails: the fix belongs in src/engine/approvals.ts (decideFully: show
 * the hook a copy of the input, or check what it left as it checks what it
 * returns), outside the folders this hunt may change.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type Plugin, tool } from "../../src/index.js";
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
  return { ran, call: () => desk("Refund A-1", { lm, plugins: [plugin] }) };
};

describe("a toolCall hook that edits the input in place", () => {
  it.fails("into one the tool does not take, returning nothing: plugin-failed, the tool does not run", async () => {
    const { ran, call } = setup((c) => {
      (c.input as { order: { id: unknown } }).order.id = 42;
    });
    expect(await codeOf(call)).toBe("plugin-failed");
    expect(ran).toEqual([]);
  });

  it.fails("into one the tool does not take, returning it as { input }: plugin-failed, the tool does not run", async () => {
    const { ran, call } = setup((c) => {
      (c.input as { order: { id: unknown } }).order.id = 42;
      return { input: c.input };
    });
    expect(await codeOf(call)).toBe("plugin-failed");
    expect(ran).toEqual([]);
  });
});
