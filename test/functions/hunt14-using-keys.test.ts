/**
 * `fn.using(settings)` takes settings (DESIGN "Public API": `.using(settings)`;
 * README: `approve` is "a setting, so it works in every layer: … `fn.using`").
 * A key that is no setting was picked out as not given, without a word:
 * `desk.using({ aprove: "changes" })` made a desk that asks nobody about a
 * refund, and `using({ signal })` a call that nothing could stop. Refused
 * now (`settings-invalid`, naming the key) when `using` is called, before
 * any model call; a list is refused as a text is.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusal } from "../fixtures/refused.js";

function desk() {
  const REFUNDS: string[] = [];
  const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    REFUNDS.push(order_id);
    return `refunded ${order_id}`;
  });
  return { fn: ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] }), REFUNDS };
}

describe("using() with a key that is no setting", () => {
  it("a misspelt approve is refused, naming the key, never a desk that asks nobody", () => {
    const { fn, REFUNDS } = desk();
    const e = refusal(() => fn.using({ aprove: "changes" } as never));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toMatch(/^using: "aprove" is not a setting; settings are lm, .*approve/);
    expect(REFUNDS).toEqual([]);
  });

  it("a call's option (signal, ctx), a spec's key (tools), or several: refused; a list too", () => {
    const { fn } = desk();
    for (const settings of [{ signal: AbortSignal.timeout(10) }, { lm: scripted([]), ctx: {} }, { tools: [] }, { maxStep: 2, temprature: 0 }, []]) {
      expect(refusal(() => fn.using(settings as never)).code, Object.keys(settings).join()).toBe("settings-invalid");
    }
    expect(refusal(() => fn.using({ maxStep: 2, temprature: 0 } as never)).message).toMatch(/"maxStep", "temprature" are not settings/);
  });

  it("settings alone are taken as before, an empty object too", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "Refunded."]);
    const layered = fn
      .using({})
      .using({ approve: () => true, maxSteps: 3 })
      .using({ lm });
    expect(await layered("Refund A-1.")).toBe("Refunded.");
    expect(REFUNDS).toEqual(["A-1"]);
  });
});
