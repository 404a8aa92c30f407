/**
 * otel()'s options are checked when the plugin is made, as settings are
 * elsewhere (settings-invalid): a `content` that is not a boolean (the text
 * "false" is truthy, and would record every prompt), a misspelt key (silently
 * ignored: `contents: true` records nothing), or a tracer that is no tracer
 * (every span then quietly missing).
 */
import { describe, expect, it } from "vitest";
import { otel, type OtelOptions } from "../../adapters/otel/index.js";
import { tracing } from "./tracing.js";

const refused = (options: unknown) => () => otel(options as OtelOptions);

describe("otel() options", () => {
  it("refuses a content that is not a boolean: the text 'false' would record message contents", () => {
    expect(refused({ content: "false" })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    expect(refused({ content: 1 })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
  });

  it("refuses an option of no known name", () => {
    expect(refused({ contents: true })).toThrow(expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining("contents") }));
  });

  it("refuses a tracer that cannot start spans, and options that are not an object", () => {
    expect(refused({ tracer: {} })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    expect(refused({ tracer: "functai" })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    expect(refused(null)).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    expect(refused("content")).toThrow(expect.objectContaining({ code: "settings-invalid" }));
  });

  it("takes what it documents", () => {
    const t = tracing();
    expect(otel({ tracer: t.tracer, content: true }).name).toBe("otel");
    expect(otel({ content: false }).name).toBe("otel");
    expect(otel().name).toBe("otel");
    expect(otel({}).name).toBe("otel");
  });
});
