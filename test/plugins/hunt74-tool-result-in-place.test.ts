/**
 * A `toolResult` hook that edits the output it is shown in place (a logger that redacts an email before it logs,
 * returning nothing: it means to keep the output) replaced the output the model read, and the one the journal kept,
 * with its edit: every plugin was shown the one object the engine then sent on and wrote. So a watcher silently
 * hid from the model what the tool returned, and the plugins after it were shown its edits, not the call. A hook
 * replaces an output only by returning `{ output }` (as the docs say); shown, it is given its own copy of the
 * output and the input, as the `toolRun` and model hooks are.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Plugin, type PluginToolResult } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a toolResult hook that edits what it is shown in place", () => {
  it("changes neither what the model reads, nor what is kept, nor what the next plugin is shown", async () => {
    const seenByAudit: unknown[] = [];
    // a logger that redacts what it logs, in place, and returns nothing (it means to keep the output as it is)
    const logger: Plugin = {
      name: "logger",
      version: "1",
      hooks: {
        toolResult: (r: PluginToolResult) => {
          if (r.output && typeof r.output === "object") (r.output as { email?: string }).email = "(hidden)";
          (r.input as { id?: string }).id = "(hidden)";
        },
      },
    };
    const audit: Plugin = {
      name: "audit",
      version: "1",
      hooks: { toolResult: (r: PluginToolResult) => void (r.name === "lookup" && seenByAudit.push({ input: r.input, output: r.output })) },
    };
    const lookup = tool("lookup", { description: "A customer.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({
      id,
      email: "sam@example.com",
    }));
    const confirm = tool("confirm", { description: "Confirms.", input: { text: z.string() }, effects: "changes" }, () => "confirmed");
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup, confirm] });
    const store = memoryStore();
    const lm = scripted([
      { toolCalls: [{ name: "lookup", input: { id: "C-7" } }] },
      { toolCalls: [{ name: "confirm", input: { text: "mail sent" } }] },
      "done",
    ]);
    const plugins = [logger, audit];
    const waiting = await desk
      .conversation("c1", { store, lm, plugins, approve: ["confirm"] })
      .send("Mail C-7")
      .catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    // the model read what the tool returned
    const toolMessage = lm.requests[1]!.messages.find((m) => m.role === "tool")!;
    expect(JSON.parse(toolMessage.content)).toEqual({ id: "C-7", email: "sam@example.com" });
    // the plugin after the logger was shown the tool's call and output, not the logger's edits
    expect(seenByAudit).toEqual([{ input: { id: "C-7" }, output: { id: "C-7", email: "sam@example.com" } }]);

    // what the journal kept is what the tool returned too: the turn goes on from it, its replies taken, none paid again
    const turn = (await desk.conversation("c1", { store, lm, plugins }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("done");
    expect(lm.requests).toHaveLength(3);
    const records = (await store.read("c1")) as unknown as { kind: string; name?: string; state?: string; output?: unknown }[];
    const done = records.find((r) => r.kind === "tool" && r.name === "lookup" && r.state === "done");
    expect(done?.output).toEqual({ id: "C-7", email: "sam@example.com" });
  });
});
