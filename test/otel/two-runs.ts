/**
 * Two runs of one turn at once in one process, both traced by the same
 * otel(): run A (playing another host) has its lease renewals held up (a
 * stalled disk), so its lease runs out while its model call is in flight; a second handle finds the turn
 * interrupted and resumes it as run B, which goes on to the end.
 *
 * Ordered by events, not by times (a busy machine once let A's 600 ms stall or its model's latency end before B
 * claimed the turn): A's renewals are held until A's model call came back, and A's model call until B's first
 * reply did. So B claims while A's lease stays run out, B is answered first while A's same step is in flight, and
 * A then finds the turn claimed (`lease-lost`).
 */
import { expect } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore, type LanguageModel, type Store } from "../../src/index.js";
import { build, memoryLog, World, worldLM, type ProgSpec } from "../durable/fixtures/world.js";
import { anotherHost } from "../fixtures/another-host.js";
import { tracing } from "./tracing.js";

const SLOW: ProgSpec = {
  root: {
    kind: "ai",
    fn: {
      name: "desk",
      tools: [
        { kind: "reads", name: "look" },
        { kind: "changes", name: "pay" },
      ],
      steps: [["look"], ["pay"]],
    },
  },
  approve: null,
  deny: [],
};

const isKind = (r: object, kind: string): boolean => (r as { kind?: string }).kind === kind;

/** A promise and what settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/**
 * `store`, with each lease renewal (a batch of leases that begins no turn) held until `until` once `holding()` says
 * so (A's model call is in flight: a first lease written apart from its turn goes through); `held` opens at the
 * first one held.
 */
function heldRenewals(store: Store, holding: () => boolean, until: Promise<void>, held: () => void): Store {
  return Object.assign(Object.create(store) as Store, {
    append: async (id: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }) => {
      if (holding() && records.some((r) => isKind(r, "lease")) && !records.some((r) => isKind(r, "turn"))) {
        held();
        await until;
      }
      return store.append(id, records, opts);
    },
  });
}

/** `lm`, its replies held until `until`; `asked` told as each call begins, `answered` as it comes back. */
function heldReplies(lm: LanguageModel, until: Promise<void> | null, answered: () => void, asked: () => void = () => undefined): LanguageModel {
  return {
    ...lm,
    async generate(request, options) {
      asked();
      if (until) await until;
      const reply = await lm.generate(request, options);
      answered();
      return reply;
    },
  };
}

/**
 * Runs the scenario; `lmA` / `lmB` may wrap each run's model (to tell their
 * replies apart). Resolves once B ended done and A was told it lost its
 * lease, with the spans made.
 *
 * @example
 * const t = await twoRuns({ latencyMs: 300 });
 * named(t.spans(), "invoke_agent desk"); // two turn spans, attempts 1 and 2
 */
export async function twoRuns(options: {
  latencyMs: number;
  lmA?: (lm: LanguageModel) => LanguageModel;
  lmB?: (lm: LanguageModel) => LanguageModel;
}) {
  const t = tracing();
  const plugins = [otel({ tracer: t.tracer })];
  const inner = memoryStore();
  const effects = memoryLog();
  const [stalled, aAnswered, bAnswered] = [gate(), gate(), gate()];
  // (A's holder named as another host's: this process tells its own holders alive while their turns run here)
  let aAsked = false;
  const store = heldRenewals(anotherHost(inner), () => aAsked, aAnswered.opened, stalled.open);
  const { lmA = (lm) => lm, lmB = (lm) => lm } = options;
  const lease = { renewMs: 50, ttlMs: 150 };
  const a = new World({ effects, latencyMs: options.latencyMs });
  const modelA = heldReplies(lmA(worldLM(a, SLOW)), bAnswered.opened, aAnswered.open, () => void (aAsked = true));
  const errA = build(SLOW, a)
    .conversation("lease", { store, lm: modelA, lease, plugins })
    .send({ text: "go" })
    .catch((e: unknown) => e);
  const b = new World({ effects });
  const chatB = build(SLOW, b).conversation("lease", { store: inner, lm: heldReplies(lmB(worldLM(b, SLOW)), null, bAnswered.open), lease, plugins });
  // A's renewal is held: its lease runs out (a time: read again until it has, however slow the machine)
  await stalled.opened;
  let turn = (await chatB.turns())[0];
  while (turn?.state !== "interrupted") {
    await new Promise<void>((r) => setTimeout(r, 20));
    turn = (await chatB.turns())[0];
  }
  // B asks its first step's model while A's same step is still in flight
  expect(await turn!.resume()).toMatch(/^desk:/);
  expect(await errA).toMatchObject({ code: "lease-lost" });
  return t;
}
