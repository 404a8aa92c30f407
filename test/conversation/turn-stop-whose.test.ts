/**
 * A turn stops, at any depth, for its own `turn-unfinished`, `lease-lost` or `turn-claimed` (a nested call's tool
 * left in doubt, its lease lost). The same codes from another conversation a tool's body acts on (it resumes a turn
 * there, and is refused: a tool in doubt, the turn running elsewhere) were read as the calling turn's own, by the
 * code alone: the calling turn failed for good, and its model was never told. They are that tool's error now,
 * shown to the model as any other; where a stop came from decides (engine/runtime.ts, isTurnStop).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConversationError, FunctaiError, ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";
import { firstStartedFault } from "../fixtures/first-started-fault.js";

/** A desk whose `retry` tool runs `body`; the desk's model calls it once, then answers "told". */
async function deskCalling(body: () => Promise<unknown>) {
  const retry = tool("retry", { description: "Retry the ops turn.", input: {}, effects: "changes" }, body);
  const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [retry] });
  const store = memoryStore();
  const lm = scripted([{ toolCalls: [{ name: "retry", input: {} }] }, "told"]);
  const answer = await desk
    .conversation("d", { store, lm })
    .send({ q: "retry ops" })
    .catch((e: unknown) => e);
  const [turn] = await desk.conversation("d", { store }).turns();
  return { answer, state: turn!.state, shown: lm.requests.length > 1 ? (toolResults(lm.requests[1])[0]![1] as string) : undefined };
}

describe("a turn's own stop, told from a tool's own error of the same code", () => {
  it("another conversation's turn-unfinished, met by a tool's body that resumes a turn in doubt there, is that tool's error", async () => {
    const restart = tool("restart", { description: "Restart.", input: { host: z.string() }, effects: "changes" }, () => "restarted");
    const ops = ai("ops", { description: "Ops.", input: { q: z.string() }, tools: [restart] });
    // ops's turn: its restart's `started` written, the acknowledgement lost: in doubt, for a person to say
    const opsStore = firstStartedFault(memoryStore(), "after-write");
    const opsLm = scripted([{ toolCalls: [{ name: "restart", input: { host: "db1" } }] }, "done"]);
    await expect(ops.conversation("ops", { store: opsStore, lm: opsLm }).send({ q: "restart db1" })).rejects.toBeInstanceOf(FunctaiError);
    const refused = { error: undefined as unknown };
    const { answer, state, shown } = await deskCalling(async () => {
      const [opsTurn] = await ops.conversation("ops", { store: opsStore.inner, lm: opsLm }).turns();
      return opsTurn!.resume().catch((e: unknown) => {
        refused.error = e;
        throw e;
      });
    });
    expect((refused.error as FunctaiError).code).toBe("turn-unfinished");
    expect(answer).toBe("told");
    expect(state).toBe("done");
    expect(shown).toMatch(/^Error: /);
    expect(shown).toMatch(/say what it returned|rerun/);
  });

  it.each(["turn-claimed", "lease-lost", "turn-unfinished"] as const)(
    "a tool that throws its own %s: the model is shown it, the turn ends done",
    async (code) => {
      const { answer, state, shown } = await deskCalling(async () => {
        throw new ConversationError(code, "the ops turn goes on elsewhere");
      });
      expect(answer).toBe("told");
      expect(state).toBe("done");
      expect(shown).toMatch(/the ops turn goes on elsewhere/);
    },
  );
});
