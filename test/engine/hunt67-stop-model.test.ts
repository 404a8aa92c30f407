/**
 * A stop while a LanguageModel ignores its signal (a custom model over a local runtime with no abort, a fetch whose
 * signal was left out) is bounded as a stop during a tool is (STOP_GRACE_MS, hunt 67): it hung for good before. Its
 * reply, when it comes later in the same process, is not written: the journal never gains a record after the
 * turn's end (a stopped turn never goes on, so nothing it would replay is lost).
 *
 * Bound: 20 s for a 5 s grace, as in hunt67-stop-bound.test.ts (a loaded machine's timers may fire late).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, LM_SPEC, memoryStore, type LanguageModel, type LMResponse } from "../../src/index.js";
import { settleOrHang } from "./fixtures.js";


describe("a stop while the model ignores its signal", () => {
  it("rejects turn-aborted, keeps the end, and writes nothing when the reply comes later", async () => {
    let release!: (r: LMResponse) => void;
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    const deaf: LanguageModel = {
      specificationVersion: LM_SPEC,
      provider: "local",
      model: "deaf",
      nativeTools: true,
      generate: () => {
        asked();
        return new Promise<LMResponse>((r) => (release = r));
      },
    };
    const fn = ai("desk", { description: "Help.", input: { q: z.string() } });
    const store = memoryStore();
    const controller = new AbortController();
    const sent = fn.conversation("c1", { store, lm: deaf }).send("go", { signal: controller.signal });
    await wasAsked;
    controller.abort();
    const outcome = await settleOrHang(sent);
    expect(outcome).toBe("turn-aborted");
    const records = await store.read("c1");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    release({ text: "late", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await store.read("c1")).length).toBe(records.length);
  });
});
