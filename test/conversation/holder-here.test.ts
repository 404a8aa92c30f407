/**
 * A turn running in this process is alive to every reader in this process,
 * whatever its lease says (DESIGN: a holder whose pid runs is alive): a
 * renewal held up past the lease (a blocked event loop, a slow disk) lets no
 * reader here (a `serve()` beside the turn) take it for interrupted, and no
 * person's resume or rerun claim it while it runs. Before, the lease decided
 * for holders of this process, and the turn read interrupted.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

describe("a turn running here, its lease run out", () => {
  it("reads running (stalled) here; a resume and a rerun are refused; it ends as it would have, its tool run once", async () => {
    const store = memoryStore();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let entered = false;
    let charged = 0;
    const charge = tool("charge", { description: "Charges.", input: {}, effects: "changes" }, async () => {
      entered = true;
      await gate;
      charged += 1;
      return "charged";
    });
    const desk = ai("desk", { description: "Charge.", input: { ask: z.string() }, tools: [charge] });
    // its lease lasts 30 ms and is renewed every second: it runs out while the tool runs
    const sent = desk
      .conversation("c", { store, lm: scripted([{ toolCalls: [{ name: "charge", input: {} }] }, "done"]), lease: { renewMs: 1_000, ttlMs: 30 } })
      .send("go");
    await expect.poll(() => entered).toBe(true);
    await new Promise((r) => setTimeout(r, 100)); // well past its lease
    const [turn] = await desk.conversation("c", { store, lm: scripted(["again"]) }).turns();
    expect([turn!.state, turn!.stalled]).toEqual(["running", true]);
    await expect(turn!.resume()).rejects.toMatchObject({ code: "turn-state" });
    await expect(turn!.resume({ rerun: ["1"] })).rejects.toMatchObject({ code: "turn-state" });
    open();
    expect(await sent).toBe("done");
    expect(charged).toBe(1);
  });
});
