/**
 * Two runs of one turn at once in one process, both traced by the same
 * otel(): run A (playing another host) has its lease renewals held up (a
 * stalled disk), so its lease runs out while its model call is in flight; a second handle finds the turn
 * interrupted and resumes it as run B, which goes on to the end.
 */
import { expect } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore, type LanguageModel } from "../../src/index.js";
import { faultyStore } from "../../src/testing/index.js";
import { build, memoryLog, World, worldLM, type ProgSpec } from "../durable/fixtures/world.js";
import { anotherHost } from "../fixtures/another-host.js";
import { tracing } from "./tracing.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const SLOW: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: null, deny: [],
};

const isKind = (r: object, kind: string): boolean => (r as { kind?: string }).kind === kind;

/**
 * Runs the scenario; `lmA` / `lmB` may wrap each run's model (to tell their
 * replies apart). Resolves once B ended done and A was told it lost its
 * lease, with the spans made.
 *
 * @example
 * const t = await twoRuns({ latencyMs: 300 });
 * named(t.spans(), "invoke_agent desk"); // two turn spans, attempts 1 and 2
 */
export async function twoRuns(options: { latencyMs: number; lmA?: (lm: LanguageModel) => LanguageModel; lmB?: (lm: LanguageModel) => LanguageModel }) {
  const t = tracing();
  const plugins = [otel({ tracer: t.tracer })];
  const inner = memoryStore();
  const effects = memoryLog();
  // (A's holder named as another host's: this process tells its own holders alive while their turns run here)
  const stalled = faultyStore(anotherHost(inner), { delayMs: (c) => (c?.records.some((r) => isKind(r, "lease")) && !c.records.some((r) => isKind(r, "turn")) ? 600 : 0) });
  const { lmA = (lm) => lm, lmB = (lm) => lm } = options;
  const lease = { renewMs: 50, ttlMs: 150 };
  const a = new World({ effects, latencyMs: options.latencyMs });
  const errA = build(SLOW, a).conversation("lease", { store: stalled, lm: lmA(worldLM(a, SLOW)), lease, plugins }).send({ text: "go" }).catch((e: unknown) => e);
  const b = new World({ effects });
  const chatB = build(SLOW, b).conversation("lease", { store: inner, lm: lmB(worldLM(b, SLOW)), lease, plugins });
  let turn = (await chatB.turns())[0];
  for (let i = 0; i < 60 && turn?.state !== "interrupted"; i++) {
    await sleep(20);
    turn = (await chatB.turns())[0];
  }
  expect(turn!.state).toBe("interrupted");
  // B asks its first step's model while A's same step is still in flight
  expect(await turn!.resume()).toMatch(/^desk:/);
  expect(await errA).toMatchObject({ code: "lease-lost" });
  return t;
}
