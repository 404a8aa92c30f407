/**
 * Hunt 56: two otel() instances (one tracer for each of two backends) given to one configure were both named
 * "otel". A plugin's name keys what it keeps in a turn's records (`keep`, shown back as `kept`) and the approvals
 * it asks for, so each instance was shown the other's trace contexts: the resumed turn's span of each tracer
 * linked to both first runs, one of them a span its backend never got. Two plugins of one name are now refused
 * (plugin-invalid: by configure itself, or before any model call when they come from two layers), saying how to
 * give one a name of its own; renamed, each keeps its own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { configure, FunctaiError, memoryStore, resetConfiguration, Waiting } from "../../src/index.js";
import { deskLM, traceDesk } from "./fixtures/desk.js";
import { idOf, named, tracing } from "./tracing.js";

afterEach(() => resetConfiguration());

describe("two otel() instances in one configure", () => {
  it("are refused (plugin-invalid) by configure itself, saying how to tell them apart", async () => {
    const a = tracing();
    const b = tracing();
    let e: unknown;
    try {
      configure({ plugins: [otel({ tracer: a.tracer }), otel({ tracer: b.tracer })] });
    } catch (thrown) {
      e = thrown;
    }
    const lm = deskLM();
    const refunds: string[] = [];
    // nothing was configured: a call runs untraced
    expect(await traceDesk(refunds)("Refund A-1042.", { lm })).toBe("Done: refunded 39 for A-1042");
    expect([a.spans(), b.spans()]).toEqual([[], []]);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "plugin-invalid" });
    expect((e as Error).message).toMatch(/two plugins are named "otel"/);
    expect((e as Error).message).toMatch(/name: /);
  });

  it("one given to configure and one to the call, both named otel: refused before any model call", async () => {
    const a = tracing();
    const b = tracing();
    configure({ plugins: [otel({ tracer: a.tracer })] });
    const lm = deskLM();
    const refunds: string[] = [];
    const e = await traceDesk(refunds)("Refund A-1042.", { lm, plugins: [otel({ tracer: b.tracer })] }).then(
      (v) => v,
      (e: unknown) => e,
    );
    expect(e).toMatchObject({ code: "plugin-invalid", message: expect.stringMatching(/two plugins are named "otel"/) });
    expect(lm.requests).toHaveLength(0);
    expect(refunds).toEqual([]);
  });

  it("renamed, each keeps its own trace context: a resumed turn's span links only to its own tracer's first run", async () => {
    const a = tracing();
    const b = tracing();
    configure({ plugins: [otel({ tracer: a.tracer }), { ...otel({ tracer: b.tracer }), name: "otel-b" }] });
    const refunds: string[] = [];
    const chat = traceDesk(refunds).conversation("sam", { store: memoryStore(), approve: "changes", lm: deskLM() });
    await expect(chat.send("Refund A-1042.")).rejects.toBeInstanceOf(Waiting);
    const [turn] = await chat.turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Done: refunded 39 for A-1042");
    for (const t of [a, b]) {
      const [first, second] = named(t.spans(), "invoke_agent desk");
      expect(first!.attributes).toMatchObject({ "functai.resumed": false });
      expect(second!.attributes).toMatchObject({ "functai.resumed": true });
      expect(second!.links.map((l) => l.context.spanId)).toEqual([idOf(first!)]);
    }
    expect(refunds).toEqual(["A-1042"]);
  });
});
