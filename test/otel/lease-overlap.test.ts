/**
 * Two runs of one turn at once in one process, both traced by the same
 * otel() (a configure-wide plugin): a run whose lease ran out is still
 * waiting for its model while another handle claims the turn and goes on
 * with it. Each run's turn span ends once, with its own ending.
 */
import { describe, expect, it } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore } from "../../src/index.js";
import { faultyStore } from "../../src/testing/index.js";
import { build, memoryLog, World, worldLM, type ProgSpec } from "../durable/fixtures/world.js";
import { idOf, named, parentOf, tracing } from "./tracing.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const SLOW: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: null, deny: [],
};

describe("otel() with two runs of one turn at once", () => {
  it("a run that lost its lease and the run that claimed the turn after it: two turn spans, each ended once with its own state", async () => {
    const t = tracing();
    const plugins = [otel({ tracer: t.tracer })];
    const inner = memoryStore();
    const effects = memoryLog();
    // A's renewals are held up (a stalled disk): its lease runs out while it waits for the model
    const stalled = faultyStore(inner, {
      delayMs: (c) => (c?.records.some((r) => (r as { kind?: string }).kind === "lease") && !c.records.some((r) => (r as { kind?: string }).kind === "turn") ? 600 : 0),
    });
    const a = new World({ effects, latencyMs: 300 });
    const errA = build(SLOW, a).conversation("lease", { store: stalled, lm: worldLM(a, SLOW), lease: { renewMs: 50, ttlMs: 150 }, plugins }).send({ text: "go" }).catch((e: unknown) => e);
    const b = new World({ effects });
    const chatB = build(SLOW, b).conversation("lease", { store: inner, lm: worldLM(b, SLOW), lease: { renewMs: 50, ttlMs: 150 }, plugins });
    let turn = (await chatB.turns())[0];
    for (let i = 0; i < 60 && turn?.state !== "interrupted"; i++) {
      await sleep(20);
      turn = (await chatB.turns())[0];
    }
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toMatch(/^desk:/);
    expect(await errA).toMatchObject({ code: "lease-lost" });

    const runs = named(t.spans(), "invoke_agent desk");
    expect(runs.map((s) => [s.attributes["functai.attempt"], s.attributes["functai.turn.state"]]).sort()).toEqual([[1, "interrupted"], [2, "done"]]);
    const second = runs.find((s) => s.attributes["functai.attempt"] === 2)!;
    // B's tools ran under B's span
    for (const name of ["execute_tool look", "execute_tool pay"]) expect(named(t.spans(), name).map(parentOf)).toEqual([idOf(second)]);
  });
});
