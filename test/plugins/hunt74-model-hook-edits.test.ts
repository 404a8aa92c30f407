/**
 * The model hooks watch: a plugin that edited the request or the reply it was shown in place (a logger that redacts
 * a message, or a tool call's input, before it logs) changed what the plugins after it were shown (a trace or an
 * audit log recorded the logger's edits, not the call): every plugin was shown one shared copy. Each is now shown
 * its own, as the request sent and the reply read were already kept apart from them.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("model hooks that edit what they are shown in place", () => {
  it("one plugin's edits reach neither the next plugin, nor the model, nor the function", async () => {
    const seen: unknown[] = [];
    const redacting: Plugin = {
      name: "redacting",
      version: "1",
      hooks: {
        modelRequest: (r) => {
          for (const m of r.request.messages) if (m.role === "user") (m as { content: string }).content = "(hidden)";
        },
        modelResponse: (r) => {
          for (const c of r.response?.toolCalls ?? []) (c.input as { id: string }).id = "(hidden)";
        },
      },
    };
    const audit: Plugin = {
      name: "audit",
      version: "1",
      hooks: {
        modelRequest: (r) => void seen.push(r.request.messages.filter((m) => m.role === "user").map((m) => m.content)),
        modelResponse: (r) => void seen.push((r.response?.toolCalls ?? []).map((c) => c.input)),
      },
    };
    const looked: string[] = [];
    const lookup = tool("lookup", { description: "Looks up.", input: { id: z.string() }, effects: "reads" }, ({ id }) => {
      looked.push(id);
      return "shipped";
    });
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "A-1042" } }] }, "<result>\nshipped\n</result>"]);
    expect(await fn.using({ lm, plugins: [redacting, audit] })("Where is A-1042?")).toBe("shipped");
    expect(looked).toEqual(["A-1042"]);
    expect(lm.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["<q>\nWhere is A-1042?\n</q>"]);
    expect(seen[0]).toEqual(["<q>\nWhere is A-1042?\n</q>"]);
    expect(seen[1]).toEqual([{ id: "A-1042" }]);
  });
});
