/**
 * Hunt 82: `bootstrapFewShot` none of whose runs worked rejects with "the first run's error" (decided in hunt 75:
 * its code and message, naming its row). With rows run at once (`concurrency`, default 8), that was the first run
 * to fail in time, not row 1's: the code a caller branches on (a missing key's `lm-unknown`, a provider's rate
 * limit) and the row named changed from one run to the next with how fast each call failed. It is the first row's.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, FunctaiError, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("bootstrapFewShot whose every run failed, rows run at once", () => {
  it("rejects with row 1's error, though row 2's came first", async () => {
    // row 1's run calls a tool that fails after a while; row 2's model fails at once
    const slowLookup = tool("slow_lookup", { description: "Looks the order up.", input: { id: z.string() }, effects: "reads" }, async () => {
      await new Promise((r) => setTimeout(r, 200));
      throw new Error("the order service timed out");
    });
    const brain = (req: LMRequest) => {
      const last = req.messages.at(-1)!;
      if (last.role === "user" && last.content.includes("slow")) return { toolCalls: [{ name: "slow_lookup", input: { id: "A-1" } }] };
      throw new FunctaiError("provider-response", "the model's reply was cut off");
    };
    const lm = scripted([brain, brain, brain, brain]);
    const answer = ai("answer", { description: "Answer.", input: { q: z.string() }, tools: [slowLookup], toolErrors: "raise", lm });
    const progress: string[] = [];
    const error = await bootstrapFewShot(answer, [{ q: "slow one" }, { q: "fast one" }], {
      metric: () => 1,
      concurrency: 2,
      onProgress: ({ done }) => {
        progress.push(`done ${done}`);
      },
    }).then(
      () => null,
      (e: unknown) => e as FunctaiError,
    );
    expect(progress).toEqual(["done 1", "done 2"]);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error!.code).toBe("tool-failed");
    expect(error!.message).toMatch(/the first \(row 1\): tool-failed: .*timed out/);
  });
});
