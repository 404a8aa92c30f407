/**
 * Hunt 48: spans made by a tool's own code (an HTTP client's or a database driver's instrumentation, or the
 * user's own `tracer.startActiveSpan`) inside a tool's body, and the provider SDK's HTTP spans inside a model
 * call, are not children of the call's `execute_tool` / `chat` span: the plugin's hooks run before and after the
 * body, never around it, so the active context in the body is still the one the turn was started in. A trace of a
 * refund shows the payment API's HTTP span beside the turn, not under the refund call that made it.
 *
 * Decided by the lead (hunt 56): the plugins' `toolRun(call, run)` hook runs around a tool's body, and otel()
 * runs the body in its execute_tool span's context with it. (Model calls have no such hook yet: the provider
 * SDK's HTTP spans are still beside the chat span.)
 */
import { context } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { LocalStorageContext } from "./fixtures/hunt48-context.js";
import { idOf, one, parentOf, tracing } from "./tracing.js";

describe("otel() and spans made inside a tool's body", () => {
  afterEach(() => context.disable());

  it("a span the tool's own code starts is a child of its execute_tool span", async () => {
    expect(context.setGlobalContextManager(new LocalStorageContext())).toBe(true);
    const t = tracing();
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "reads" }, ({ amount }) =>
      // the payment client's instrumentation: a span in the active context
      t.tracer.startActiveSpan("POST /payments", (span) => {
        span.end();
        return { paid: amount };
      }),
    );
    const desk = ai("desk", { description: "Desk.", input: { message: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 39 } }] }, "Paid."]);
    await desk("Pay 39.", { lm, plugins: [otel({ tracer: t.tracer })] });
    const spans = t.spans();
    const turn = one(spans, "invoke_agent desk");
    const http = one(spans, "POST /payments");
    expect(http.spanContext().traceId).toBe(turn.spanContext().traceId);
    expect(parentOf(http)).toBe(idOf(one(spans, "execute_tool pay")));
  });
});
