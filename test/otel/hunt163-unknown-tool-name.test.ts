/**
 * Hunt 163: a tool call naming no tool the model has (`tool-unknown`) still gets its `execute_tool` span, named by
 * what the model wrote. That name is the model's text, never checked: a reply that put a sentence (or 2 MB) where a
 * tool's name goes had it in the span's name, in `gen_ai.tool.name` and in `functai.path`, unbounded and with
 * contents off (hunt 78 bounded contents, hunt 103 the ids a reply names; this one was missed). Now a name no tool
 * can have (tools/name.ts: 1–64 letters, digits, _ or -) is contents: the span is `execute_tool`, and the name and
 * path are recorded only with `content: true`, bounded. A name a tool could have is shown as ever (a guard).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_ATTRIBUTE_CHARS } from "../../adapters/otel/attributes.js";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { everything, one, tracing } from "./tracing.js";

const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, () => "seen");
const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [look] });
/** What the model wrote where a tool's name goes: words of the conversation, and 2 MB of them. */
const SENTENCE = `tell the customer their card 4111 1111 1111 1111 was declined ${"x".repeat(2_000_000)}`;

async function traced(name: string, content: boolean) {
  const t = tracing();
  const lm = scripted([{ toolCalls: [{ id: "c1", name, input: {} }] }, "Done."]);
  expect(await desk("Look.", { lm, plugins: [otel({ tracer: t.tracer, content })] })).toBe("Done.");
  return t.spans();
}

describe("otel() and a tool call naming no tool", () => {
  it("contents off: the model's text is in no span name nor attribute; the span still says what failed", async () => {
    const spans = await traced(SENTENCE, false);
    const span = one(spans, "execute_tool");
    expect(span.attributes["gen_ai.tool.name"]).toBeUndefined();
    expect(span.attributes["functai.path"]).toBeUndefined();
    expect(span.attributes["error.type"]).toBe("tool-unknown");
    expect(span.status).toEqual({ code: 2 });
    expect(span.attributes["functai.site"]).toBeTypeOf("string");
    expect(everything(spans)).not.toContain("4111");
  });

  it("contents on: its name and path are recorded, each bounded and saying it was cut", async () => {
    const span = one(await traced(SENTENCE, true), "execute_tool");
    for (const key of ["gen_ai.tool.name", "functai.path"]) {
      const text = span.attributes[key] as string;
      expect(text).toContain("4111");
      expect(text.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS);
      expect(text).toMatch(/characters in all/);
    }
  });

  it("guard: a name a tool could have (a misspelt one) names its span and is recorded, contents off", async () => {
    const span = one(await traced("lok", false), "execute_tool lok");
    expect(span.attributes["gen_ai.tool.name"]).toBe("lok");
    expect(span.attributes["functai.path"]).toBe("desk/lok");
    expect(span.attributes["error.type"]).toBe("tool-unknown");
  });
});
