/**
 * The turn hooks (`turnStart`, `turnEnd`) watch, as the model-call hooks
 * do: a hook that changes what it is shown (redacting a log) changes
 * neither the input the function is called with nor the result the caller
 * gets.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("turn hooks that edit what they are shown", () => {
  it("turnStart redacting the input: the model is sent the caller's input", async () => {
    const fn = ai("order", { description: "Look.", input: { order: z.object({ id: z.string(), card: z.string() }) } });
    const redact: Plugin = {
      name: "redact",
      version: "1",
      hooks: {
        turnStart: (t) => {
          (t.input as { order: { card: string } }).order.card = "(hidden)";
        },
      },
    };
    const lm = scripted(["ok"]);
    expect(await fn({ order: { id: "A-1", card: "4111" } }, { lm, plugins: [redact] })).toBe("ok");
    const user = lm.requests[0]!.messages.find((m) => m.role === "user")!;
    expect(user.content).toContain("4111");
  });

  it("turnEnd redacting the result: the caller gets the result as the function read it", async () => {
    const fn = ai("customer", { description: "Find.", input: { name: z.string() }, output: z.object({ name: z.string(), email: z.string() }) });
    const redact: Plugin = {
      name: "redact",
      version: "1",
      hooks: {
        turnEnd: (end) => {
          if (end.state === "done") (end.result as { email: string }).email = "(hidden)";
        },
      },
    };
    const lm = scripted(['<result>\n{"name":"Sam","email":"sam@example.com"}\n</result>']);
    expect(await fn("Sam", { lm, plugins: [redact] })).toEqual({ name: "Sam", email: "sam@example.com" });
  });
});
