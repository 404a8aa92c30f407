/**
 * A call's input: with one input, the object form (`{ q }`) or the value
 * alone. An object with no other key than the input's is read the way that
 * fits, so an optional input may be left out as `{}` (as `z.input` types it,
 * and as a delegate passes on a call the model made without it), and an
 * input that is itself an object with that key may be given alone.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, FunctaiError, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

describe("a single input", () => {
  it("an optional one left out, as {} or as nothing: taken, and the model is sent no block for it", async () => {
    const f = ai("f", { description: "d", input: { note: z.string().optional() } });
    const lm = scripted(["one", "two"]);
    expect(await f({}, { lm })).toBe("one");
    expect(await f(undefined as never, { lm })).toBe("two");
    for (const request of lm.requests) expect(request.messages[1]!.content).toBe("");
  });

  it("a required one given as {}: still refused before any model call", async () => {
    const f = ai("f", { description: "d", input: { q: z.string() } });
    const lm = scripted(["never"]);
    const err = await f({} as never, { lm }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("input-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("an object input whose own key is the input's name may be given alone", async () => {
    const f = ai("f", { description: "d", input: { filter: z.object({ filter: z.string() }) } });
    const lm = scripted(["ok", "ok"]);
    expect(await f({ filter: "kettle" } as never, { lm })).toBe("ok");
    expect(await f({ filter: { filter: "kettle" } }, { lm })).toBe("ok");
    for (const request of lm.requests) expect(request.messages[1]!.content).toBe('<filter>\n{"filter":"kettle"}\n</filter>');
  });

  it("a delegated program whose one input is optional runs when the model leaves it out", async () => {
    const seen: unknown[] = [];
    const notes = program("notes", { description: "The notes.", input: { topic: z.string().optional() }, effects: "reads" }, async ({ topic }) => {
      seen.push(topic);
      return `notes on ${topic ?? "everything"}`;
    });
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [delegate(notes)] });
    const lm = scripted([{ toolCalls: [{ name: "notes", input: {} }] }, "done"]);
    expect(await desk("go", { lm })).toBe("done");
    expect(toolResults(lm.requests[1])).toEqual([["notes", "notes on everything"]]);
    expect(seen).toEqual([undefined]);
  });
});
