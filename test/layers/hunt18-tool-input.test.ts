/**
 * A tool is run on the model's reply's own objects: a tool whose input
 * schema passes a value through as it is (`z.any()`, `z.unknown()`) and
 * that edits it (sorting a list it was given, adding a field) edits the
 * reply. A reading tool runs before the reply is written (it does not
 * wait for the journal), so the `reply` record keeps a tool call the model
 * never made, and the next request tells the model it asked for it: on a
 * resume, that reply, not the model's, is the one replayed.
 *
 * The tool is now given what its schema reads from a copy of the model's
 * call (src/engine/tool-calls.ts).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { scripted } from "../../src/testing/index.js";

describe("a reading tool that edits its own input", () => {
  it("leaves the model's reply as the model gave it: in the journal, and in the next request", async () => {
    const look = tool("look", { description: "Look.", input: { data: z.any() }, effects: "reads" }, ({ data }) => {
      (data as { list: number[] }).list.push(2);
      return "seen";
    });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [look] });
    const lm = scripted([{ toolCalls: [{ name: "look", input: { data: { list: [1] } } }] }, "Done."]);
    const store = memoryStore();
    expect(await desk.conversation("sam", { store, lm }).send("Look")).toBe("Done.");
    const reply = (await store.read("sam")).find((r) => r.kind === "reply") as unknown as { response: { toolCalls: { input: unknown }[] } };
    expect(reply.response.toolCalls[0]!.input).toEqual({ data: { list: [1] } });
    const assistant = lm.requests[1]!.messages.find((m) => m.role === "assistant") as { toolCalls: { input: unknown }[] };
    expect(assistant.toolCalls[0]!.input).toEqual({ data: { list: [1] } });
  });
});
