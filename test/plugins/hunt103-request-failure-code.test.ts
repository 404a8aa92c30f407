/**
 * Hunt 103: a plugin's `modelRequest` hook that throws (a policy plugin refusing the request) stops the model call
 * before it is made; the plugins already shown the request are told it failed. They were told its words only, no
 * code, so a tracer ended its chat span as a model error (`error.type: model_error`, otel's word for a failure with
 * no code), while the turn failed `plugin-failed`. They are now told the code too, as after a failed model call.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type Plugin, type PluginModelResponse } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { failure } from "./fixtures/coded-failure.js";

describe("a modelRequest hook that throws: the plugins shown the request are told the call failed, with its code", () => {
  it("the watcher's modelResponse is told plugin-failed, and the model is never called", async () => {
    const seen: PluginModelResponse[] = [];
    const watcher: Plugin = { name: "watcher", version: "1", hooks: { modelResponse: (r) => void seen.push(r) } };
    const policy: Plugin = {
      name: "policy",
      version: "1",
      hooks: {
        modelRequest: () => {
          throw new Error("request refused by policy");
        },
      },
    };
    const lm = scripted(["never"]);
    const ask = ai("ask", { description: "Answer.", input: { q: z.string() } });
    const err = await failure(ask("hi", { lm, plugins: [watcher, policy] }));
    expect(err.code).toBe("plugin-failed");
    expect(lm.requests).toHaveLength(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ code: "plugin-failed", error: expect.stringContaining("request refused by policy") });
  });
});
