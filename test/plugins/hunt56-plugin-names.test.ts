/**
 * Hunt 56: two plugins of one name. A plugin's name keys the approvals it asks for (their ids, and the answers
 * found for them) and what it keeps in a turn's records. Two plugins both named "guard", each asking its own
 * question about one call, made one approval id: once a person said yes to the first question, the second was
 * taken as answered by that yes, and the tool ran without anyone seeing it. Two plugins of one name are refused
 * now (plugin-invalid), before any model call; the same plugin given in two layers is still one plugin.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, FunctaiError, memoryStore, resetConfiguration, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { failure } from "./fixtures/coded-failure.js";

afterEach(() => resetConfiguration());

function setup() {
  const refunds: number[] = [];
  const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    refunds.push(amount);
    return { refunded: amount };
  });
  const desk = ai("desk", { description: "Desk.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 900 } }] }, "Refunded."]);
  return { desk, lm, refunds };
}

const asking = (question: string): Plugin => ({ name: "guard", version: "1", hooks: { toolCall: () => ({ ask: question }) } });

describe("two plugins of one name", () => {
  it("are refused (plugin-invalid) when given, before any model call: a second question is never taken as answered by the first's yes", async () => {
    const { desk, lm, refunds } = setup();
    const guards = [asking("Over 500: refund?"), asking("Flagged customer: refund anyway?")];
    // (before: the first question waited; a yes to it let the refund run, the second question never shown)
    for (const give of [
      () => desk.conversation("sam", { store: memoryStore(), lm, plugins: guards }),
      () => desk.using({ plugins: guards }),
      () => configure({ plugins: guards }),
    ]) {
      let e: unknown;
      try {
        give();
      } catch (thrown) {
        e = thrown;
      }
      expect(e).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "plugin-invalid", message: expect.stringMatching(/two plugins are named "guard"/) });
    }
    // from two layers (configure's and the call's): refused when the turn starts
    configure({ plugins: [guards[0]!] });
    const e = await failure(desk("Refund 900.", { lm, plugins: [guards[1]!] }));
    expect(e.code).toBe("plugin-invalid");
    expect({ asked: lm.requests.length, refunds }).toEqual({ asked: 0, refunds: [] });
  });

  it("given to an inner call only: refused before that call's model is asked (a tool's error, as an inner call's other settings are)", async () => {
    const { lm, refunds } = setup();
    const innerLM = scripted(["unused"]);
    const noted: Plugin = { name: "guard", version: "1", hooks: { turnStart: () => undefined } };
    const helper = ai("helper", { description: "Help.", input: { q: z.string() } }).using({ lm: innerLM, plugins: [asking("Refund?")] });
    const outer = ai("outer", { description: "Outer.", input: { q: z.string() }, tools: [helper] });
    const outerLM = scripted([{ toolCalls: [{ name: "helper", input: { q: "hi" } }] }, "ok"]);
    const e = await failure(outer("go", { lm: outerLM, plugins: [noted], toolErrors: "raise" }));
    expect(e.code).toBe("tool-failed");
    expect(e.cause).toMatchObject({ code: "plugin-invalid" });
    expect(e.message).toMatch(/two plugins are named "guard"/);
    expect(innerLM.requests).toHaveLength(0);
    expect({ refunds, lm: lm.requests.length }).toEqual({ refunds: [], lm: 0 });
  });

  it("the same plugin given in two layers is one plugin, not refused", async () => {
    const { desk, lm, refunds } = setup();
    const seen: string[] = [];
    const audit: Plugin = { name: "audit", version: "1", hooks: { toolResult: (r) => void seen.push(r.name) } };
    expect(await desk.using({ plugins: [audit] })("Refund 900.", { lm, plugins: [audit] })).toBe("Refunded.");
    expect({ seen, refunds }).toEqual({ seen: ["refund"], refunds: [900] });
  });
});
