/**
 * The model-call hooks (`modelRequest`, `modelResponse`) watch: a hook that
 * throws still lets every other plugin that saw the request see how it
 * ended (a span it opened is closed), and a hook that changes what it is
 * shown changes neither the request sent nor the reply the function reads.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, type Plugin, type PluginModelResponse } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools } from "../engine/fixtures.js";

const echo = ai("echo", { description: "Echo.", input: { message: z.string() } });

/** A plugin that opens a "span" on each request and closes it on each response, keeping what it was told. */
function spans(name: string) {
  const open = new Set<number>();
  const told: PluginModelResponse[] = [];
  const plugin: Plugin = {
    name,
    version: "1",
    hooks: {
      modelRequest: (r) => void open.add(r.step),
      modelResponse: (r) => {
        open.delete(r.step);
        told.push(r);
      },
    },
  };
  return { plugin, open, told };
}

const failing = (hook: "modelRequest" | "modelResponse"): Plugin => ({
  name: `broken-${hook}`,
  version: "1",
  hooks: { [hook]: () => { throw new Error("boom"); } },
});

describe("model-call hooks that throw", () => {
  it("modelRequest: plugins whose modelRequest ran are told the call failed; the call fails with plugin-failed, the model is not asked", async () => {
    const before = spans("before");
    const after = spans("after");
    const lm = scripted(["ok"]);
    const error = await echo("hi", { lm, plugins: [before.plugin, failing("modelRequest"), after.plugin] }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "plugin-failed", message: expect.stringContaining("broken-modelRequest failed in modelRequest") });
    expect(lm.requests).toHaveLength(0);
    expect(before.open.size).toBe(0);
    expect(before.told).toEqual([expect.objectContaining({ step: 1, error: expect.stringContaining("boom") })]);
    expect(after.told).toEqual([]); // never shown the request: not told of its end
  });

  it("modelResponse: every other plugin's modelResponse still runs, then the call fails with the first failure", async () => {
    const first = spans("first");
    const last = spans("last");
    const error = await echo("hi", { lm: scripted(["ok"]), plugins: [first.plugin, failing("modelResponse"), last.plugin] }).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: "plugin-failed", message: expect.stringContaining("broken-modelResponse failed in modelResponse") });
    expect(first.open.size).toBe(0);
    expect(last.open.size).toBe(0);
    expect(last.told).toEqual([expect.objectContaining({ response: expect.objectContaining({ text: "ok" }) })]);
  });

  it("modelResponse after a failed model call: every plugin is told the error", async () => {
    const first = spans("first");
    const last = spans("last");
    const error = await echo("hi", { lm: scripted([]), plugins: [first.plugin, failing("modelResponse"), last.plugin] }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(first.told).toEqual([expect.objectContaining({ error: expect.stringContaining("script ended") })]);
    expect(last.told).toEqual([expect.objectContaining({ error: expect.stringContaining("script ended") })]);
  });
});

describe("model-call hooks that change what they are shown", () => {
  it("a modelResponse hook that edits the reply (redacting it for a log) does not change the function's answer", async () => {
    const redact: Plugin = { name: "redact", version: "1", hooks: { modelResponse: (r) => void (r.response && (r.response.text = "[redacted]")) } };
    expect(await echo("hi", { lm: scripted(["the secret answer"]), plugins: [redact] })).toBe("the secret answer");
  });

  it("a modelRequest hook that edits the messages does not change what the model is sent, now or at the next step", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder] });
    const redact: Plugin = { name: "redact", version: "1", hooks: { modelRequest: (r) => {
      for (const m of r.request.messages) m.content = "[redacted]";
      r.request.tools.length = 0;
    } } };
    const lm = scripted([{ toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }] }, "done"]);
    expect(await desk("Where is A-1?", { lm, plugins: [redact] })).toBe("done");
    expect(lm.requests).toHaveLength(2);
    for (const request of lm.requests) {
      expect(request.messages.some((m) => m.content === "[redacted]")).toBe(false);
      expect(request.tools.map((x) => x.name)).toEqual(["find_order"]);
    }
    expect(lm.requests[0]!.messages.at(-1)!.content).toContain("Where is A-1?");
  });
});
