/**
 * Hunt 163: a tool call whose run fails its turn, its result never told. A plugin after otel() whose `toolRun` hook
 * throws before calling `run` fails the turn (`plugin-failed`); no `toolResult` is told, so the call's
 * `execute_tool` span (started as the tool was about to run) was ended by the turn's end with `functai.turn.state`
 * `failed` and no status at all: a backend counting failed spans by their status counted the turn, not the call
 * that failed it. Now such a span is failed as the turn's is: `error.type` the code of what its run threw, status
 * ERROR, the error's text in it only with `content: true` (the error names the input: `Look Q-77`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { everything, one, tracing } from "./tracing.js";

async function traced(content: boolean) {
  const t = tracing();
  let ran = false;
  const look = tool("look", { description: "Look.", input: { q: z.string() }, effects: "reads" }, () => {
    ran = true;
    return "seen";
  });
  const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [look] });
  const lm = scripted([{ toolCalls: [{ id: "c1", name: "look", input: { q: "Q-77" } }] }, "Seen."]);
  const broken: Plugin = {
    name: "broken",
    version: "1",
    hooks: {
      toolRun: (call) => {
        throw new Error(`cannot wrap ${JSON.stringify(call.input)}`);
      },
    },
  };
  const failure = await desk("Look Q-77.", { lm, plugins: [otel({ tracer: t.tracer, content }), broken] }).then(
    () => undefined,
    (e: { code?: string }) => e.code,
  );
  expect([failure, ran]).toEqual(["plugin-failed", false]);
  return t.spans();
}

describe("otel() and a tool call whose run failed its turn", () => {
  it("contents off: its span failed with the run's code, and holds no words of the error", async () => {
    const spans = await traced(false);
    const span = one(spans, "execute_tool look");
    expect([span.attributes["error.type"], span.status, span.attributes["functai.turn.state"]]).toEqual(["plugin-failed", { code: 2 }, "failed"]);
    expect(one(spans, "invoke_agent desk").status).toEqual({ code: 2 });
    expect(everything(spans)).not.toContain("Q-77");
  });

  it("contents on: its status says why", async () => {
    const span = one(await traced(true), "execute_tool look");
    expect(span.status.code).toBe(2);
    expect(span.status.message).toMatch(/plugin broken, in toolRun around desk\/look.*cannot wrap \{"q":"Q-77"\}/);
  });
});
