/**
 * Two plugins with `toolResult` hooks, the first of which throws (a redactor whose pattern is broken): the call
 * fails `plugin-failed`, as it should, but the second plugin (an audit log, a tracer) was never shown the result at
 * all, though the tool ran: a refund that went out was missing from the audit of the very turn that made it. The
 * other hooks that watch an end (`turnEnd`, `modelResponse`) tell every plugin even when one throws; now
 * `toolResult` does too (each later plugin shown the result as it stood), and the first failure is what the call
 * fails with.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, memoryStore, tool, type Plugin, type PluginToolResult } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function broken(name: string): Plugin {
  return {
    name,
    version: "1",
    hooks: {
      toolResult: () => {
        throw new Error(`${name}: bad pattern`);
      },
    },
  };
}

function audit(seen: Pick<PluginToolResult, "name" | "output" | "error">[]): Plugin {
  return {
    name: "audit",
    version: "1",
    hooks: { toolResult: (r) => void seen.push(r.error === undefined ? { name: r.name, output: r.output } : { name: r.name, error: r.error }) },
  };
}

describe("a toolResult hook that throws, before another plugin's", () => {
  it("a changing tool that ran: the later plugin still sees its result; the call fails with the first plugin's failure", async () => {
    const refunds: number[] = [];
    const refund = tool("refund", { description: "Refunds.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      refunds.push(amount);
      return { refunded: amount };
    });
    const seen: Pick<PluginToolResult, "name" | "output" | "error">[] = [];
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "done"]);
    const e = await desk
      .conversation("c1", { store, lm, plugins: [broken("redactor"), audit(seen), broken("second")] })
      .send("Refund A-1042")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("plugin-failed");
    expect((e as FunctaiError).message).toContain("redactor");
    expect(refunds).toEqual([39]);
    expect(seen).toEqual([{ name: "refund", output: { refunded: 39 } }]);
    const done = (await store.read("c1")).filter((r) => r.kind === "tool" && (r as { state?: string }).state === "done");
    expect(done.map((r) => (r as { output?: unknown }).output)).toEqual([{ refunded: 39 }]);
  });

  it("a tool that failed: the later plugin still sees its error", async () => {
    const lookup = tool("lookup", { description: "Looks up.", input: { id: z.string() }, effects: "reads" }, () => {
      throw new Error("database down");
    });
    const seen: Pick<PluginToolResult, "name" | "output" | "error">[] = [];
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "A-1" } }] }, "done"]);
    await expect(desk.using({ lm, plugins: [broken("redactor"), audit(seen)] })("Where is A-1?")).rejects.toMatchObject({
      code: "plugin-failed",
      message: expect.stringContaining("redactor"),
    });
    expect(seen).toEqual([{ name: "lookup", error: "database down" }]);
  });
});
