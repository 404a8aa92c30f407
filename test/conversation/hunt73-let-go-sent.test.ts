/**
 * A server that closes lets go of the turns it runs (`letGo`, internal: the
 * WebSocket server's close): a conversation's turn reads `interrupted`, as
 * after the process's exit, and another server resumes it. A turn just sent
 * as a stream (`chat.stream(input)`: a served program's call) runs through a
 * host that stands in while its first records are written; it had no
 * `letGo`, so the turn was stopped instead (`abort()`): ended `stopped` in its
 * records, for good, with a tool that may have run left for nobody to settle.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { letGo } from "../../src/turn/stream.js";

describe("letGo of a turn just sent as a conversation stream", () => {
  it("reads interrupted (resumable), not stopped; its tool's signal aborts; resumed, nothing is paid or run twice", async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const signals: AbortSignal[] = [];
    let looks = 0;
    const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, (_input, ctx) => {
      looks += 1;
      signals.push(ctx.signal);
      if (looks > 1) return "seen";
      started();
      return new Promise<string>((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    });
    const desk = ai("desk", { description: "Answer.", input: { ask: z.string() }, tools: [look] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, "it shipped"]);
    const s = desk.conversation("c", { store, lm }).stream("where is it?");
    s.then(undefined, () => undefined);
    await running;
    await letGo(s as never);
    expect(signals[0]!.aborted).toBe(true);
    await s.then(
      () => undefined,
      () => undefined,
    );
    const [turn] = await desk.conversation("c", { store, lm }).turns();
    expect(turn!.state).toBe("interrupted");
    expect((await store.read("c")).filter((r) => r.kind === "ended" || r.kind === "stop")).toEqual([]);
    expect(await turn!.resume()).toBe("it shipped");
    expect(lm.requests).toHaveLength(2);
  });
});
