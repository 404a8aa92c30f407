/**
 * Hunt 56: a waiting turn approved in another process (a real child process, with its own tracer provider and
 * context manager). The resumed run's turn span links to the first run's (kept in the turn's records), and the
 * span the refund's own code makes there (a payment client's instrumentation) is a child of that run's
 * `execute_tool refund` span (the `toolRun` hook), in the resumed run's trace.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context } from "@opentelemetry/api";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { otel } from "../../adapters/otel/index.js";
import { Waiting } from "../../src/index.js";
import { bundled, removeBundles, runChild } from "../durable/fixtures/spawn.js";
import { LocalStorageContext } from "./fixtures/hunt48-context.js";
import { paymentDesk, paymentLM } from "./fixtures/hunt56-payment-desk.js";
import { idOf, named, one, tracing, type ChildSpan } from "./tracing.js";

afterAll(removeBundles);
afterEach(() => context.disable());

describe("otel() across processes, with a tool's own spans", () => {
  it("the resumed run links to the first; the refund's own span is a child of its execute_tool span there", async () => {
    expect(context.setGlobalContextManager(new LocalStorageContext())).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt56-"));
    const t = tracing();
    const refunds: number[] = [];
    const chat = paymentDesk(t.tracer, refunds).conversation("sam", {
      store: fsStore(dir),
      approve: "changes",
      lm: paymentLM(),
      plugins: [otel({ tracer: t.tracer })],
    });
    await expect(chat.send("Refund 39.")).rejects.toBeInstanceOf(Waiting);
    const first = one(t.spans(), "invoke_agent desk");
    expect(named(t.spans(), "POST /refunds")).toEqual([]);

    const child = await runChild(await bundled(new URL("./fixtures/hunt56-resume-child.ts", import.meta.url).pathname), [dir, "sam"]);
    expect(child.code, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout.trim()) as { answer: string; refunds: number[]; spans: ChildSpan[] };
    expect(out.answer).toBe('Done: {"refunded":39}');
    expect([...refunds, ...out.refunds]).toEqual([39]);
    const byName = (name: string) => {
      const found = out.spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const second = byName("invoke_agent desk");
    expect(second.links).toEqual([{ traceId: first.spanContext().traceId, spanId: idOf(first) }]);
    const run = byName("execute_tool refund");
    const http = byName("POST /refunds");
    expect(run.parent).toBe(second.spanId);
    expect(http.parent).toBe(run.spanId);
    expect(http.traceId).toBe(second.traceId);
    for (const s of out.spans) expect(s.ended, s.name).toBe(true);
  }, 60_000);
});
