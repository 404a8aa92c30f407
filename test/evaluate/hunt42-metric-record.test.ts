/**
 * Hunt 42: a metric whose record of scores throws as it is read (a getter, a proxy: a judge's parsed reply wrapped
 * lazily) failed its row as `error: boom`, not `metric-failed` naming the metric, as a metric that throws does (README:
 * "evaluation: `metric-failed` (a metric that threw or gave no number)").
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program } from "../../src/index.js";

const echo = program("echo", { description: "Echo.", input: { q: z.string() }, output: z.string() }, async ({ q }) => q);

describe("a metric whose record throws while it is read", () => {
  it.each([
    [
      "a getter",
      () => ({
        get judged(): number {
          throw new Error("boom");
        },
      }),
    ],
    [
      "a proxy",
      () =>
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error("boom");
            },
          },
        ),
    ],
  ])("fails its row with metric-failed naming the metric (%s)", async (_, record) => {
    const ev = await evaluate(echo, [{ q: "a", result: "a" }], { metric: { judge: () => record() as never } });
    expect(ev.rows[0]!.error).toMatch(/^metric-failed: metric judge gave a record that could not be read: boom/);
    expect(ev.summary[0]).toMatchObject({ metric: "judge", n: 1, failed: 1, mean: 0 });
  });
});
