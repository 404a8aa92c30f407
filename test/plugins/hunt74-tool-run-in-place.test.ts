/**
 * A `toolRun` hook that edited the output `run()` gave it in place (a tracer that redacts an email before it
 * records the result), then returned it, passed the rule that a hook returns what `run` gave (the same object)
 * and silently replaced what the model read and the journal kept with its edit. The tool's output is now read
 * at the tool's boundary, as the body gave it: a hook's in-place edits change only its own view, as a
 * `toolResult` hook's do (a hook replaces an output only through `toolResult`'s `{ output }`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a toolRun hook that edits the output in place", () => {
  it("changes neither what the model reads nor what the journal keeps", async () => {
    const tracer: Plugin = {
      name: "tracer",
      version: "1",
      hooks: {
        toolRun: async (_call, run) => {
          const out = await run();
          (out as { email: string }).email = "(hidden)";
          return out;
        },
      },
    };
    const lookup = tool("lookup", { description: "A customer.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({
      id,
      email: "sam@example.com",
    }));
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "C-7" } }] }, "done"]);
    expect(await fn.conversation("c1", { store, lm, plugins: [tracer] }).send("Mail C-7")).toBe("done");
    const toolMessage = lm.requests[1]!.messages.find((m) => m.role === "tool")!;
    expect(JSON.parse(toolMessage.content)).toEqual({ id: "C-7", email: "sam@example.com" });
    const records = (await store.read("c1")) as unknown as { kind: string; state?: string; output?: unknown }[];
    expect(records.find((r) => r.kind === "tool" && r.state === "done")?.output).toEqual({ id: "C-7", email: "sam@example.com" });
  });
});
