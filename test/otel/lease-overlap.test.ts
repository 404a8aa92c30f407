/**
 * Two runs of one turn at once in one process, both traced by the same
 * otel() (a configure-wide plugin): a run whose lease ran out is still
 * waiting for its model while another handle claims the turn and goes on
 * with it. Each run's turn span ends once, with its own ending.
 */
import { describe, expect, it } from "vitest";
import { idOf, named, parentOf } from "./tracing.js";
import { twoRuns } from "./two-runs.js";

describe("otel() with two runs of one turn at once", () => {
  it("a run that lost its lease and the run that claimed the turn after it: two turn spans, each ended once with its own state", async () => {
    const t = await twoRuns({ latencyMs: 300 });
    const runs = named(t.spans(), "invoke_agent desk");
    expect(runs.map((s) => [s.attributes["functai.attempt"], s.attributes["functai.turn.state"]]).sort()).toEqual([[1, "interrupted"], [2, "done"]]);
    const second = runs.find((s) => s.attributes["functai.attempt"] === 2)!;
    // B's tools ran under B's span
    for (const name of ["execute_tool look", "execute_tool pay"]) expect(named(t.spans(), name).map(parentOf)).toEqual([idOf(second)]);
  });
});
