/**
 * A tool call that stops its turn for a person (here a delegate whose
 * delegated turn waits for an approval) is shown to the plugins' `toolResult`
 * hooks, with the reason as its error: it ran, and a plugin that records
 * calls (otel()'s spans) would otherwise leave it out. A hook that throws
 * there does not turn the stop into a failure: the caller stays resumable.
 * Found by hunt 13 (test/otel/hunt13-unfinished-span.test.ts); this failed
 * before src/engine/tool-calls.ts `inDoubt`.
 */
import { chargeDesk } from "./fixtures.js";
import { describe, expect, it } from "vitest";
import { memoryStore, type Plugin, type PluginToolResult } from "../../src/index.js";

const setup = chargeDesk;

const seeing = (results: PluginToolResult[], more: Partial<Plugin["hooks"]> = {}): Plugin => ({
  name: "seeing",
  version: "1",
  hooks: { toolResult: (r) => void results.push(r), ...more },
});

describe("toolResult hooks and a call that stops its turn for a person", () => {
  it("the delegate call whose delegated turn waits is shown to toolResult with the reason as its error", async () => {
    const { desk, lm, charges } = setup();
    const results: PluginToolResult[] = [];
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["charge"], plugins: [seeing(results)] });
    await expect(chat.send("Charge A-1.")).rejects.toMatchObject({ code: "turn-waiting" });
    expect(charges).toEqual([]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      name: "billing",
      path: "desk/billing",
      invocation: 1,
      error: expect.stringMatching(/sam\.billing needs a person/),
    });
    expect(results[0]!.output).toBeUndefined();
  });

  it("a toolResult hook that throws there leaves the stop as it was: the caller is resumable, not failed", async () => {
    const { desk, lm } = setup();
    const store = memoryStore();
    const throwing: Plugin = {
      name: "throwing",
      version: "1",
      hooks: {
        toolResult: () => {
          throw new Error("the audit log is down");
        },
      },
    };
    const chat = desk.conversation("sam", { store, lm, approve: ["charge"], plugins: [throwing] });
    await expect(chat.send("Charge A-1.")).rejects.toMatchObject({ code: "turn-waiting" });
    const [turn] = await chat.turns();
    expect(turn).toMatchObject({ state: "interrupted" });
  });
});
