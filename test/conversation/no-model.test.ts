/**
 * A turn this process could not run (an AI function with no language model
 * in its settings) is refused before anything is written or claimed
 * (`lm-missing`): a send writes no turn, a person's answer that would let the
 * turn go on here is not spent, a resume leaves the turn interrupted. Only
 * what needs no model (an answer to one of several approvals) is written.
 */
import { describe, expect, it } from "vitest";
import { Waiting, type Store } from "../../src/index.js";
import { heldTurns } from "./fixtures/held-turns.js";
import { anotherHost } from "../fixtures/another-host.js";
import { payDesk } from "./fixtures/pay-desk.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const { d: desk, paid } = payDesk();
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: { code?: string }) => e.code,
  );

/** A turn waiting for two approvals, sent with a model; and a handle of it opened with only the store. */
async function waitingTwice(store: Store) {
  const lm = scripted([
    {
      toolCalls: [
        { name: "pay", input: { amount: 5 } },
        { name: "pay", input: { amount: 7 } },
      ],
    },
    "paid",
  ]);
  expect(
    await desk
      .conversation("c", { store, lm, approve: "changes" })
      .send("pay 5 and 7")
      .catch((e: unknown) => e),
  ).toBeInstanceOf(Waiting);
  const [bare] = await desk.conversation("c", { store }).turns();
  return { lm, bare: bare!, length: (await store.read("c")).length };
}

describe.each([
  ["a store without liveness", () => memoryStore()],
  ["a store with liveness", () => ({ ...memoryStore(), liveness: heldTurns().liveness }) as Store],
])("no language model here (%s)", (_, makeStore) => {
  it("a send is refused before its turn is written", async () => {
    const store = makeStore();
    expect(await codeOf(desk.conversation("c", { store }).send("pay 5"))).toBe("lm-missing");
    expect(await codeOf(desk.conversation("c", { store, lm: 42 as never }).send("pay 5"))).toBe("lm-unknown");
    expect(await store.read("c")).toEqual([]);
  });

  it("an answer to all is refused with nothing written; given where a model is, the turn goes on", async () => {
    paid.length = 0;
    const store = makeStore();
    const { lm, bare, length } = await waitingTwice(store);
    expect(await codeOf(bare.approve({ by: "maria" }))).toBe("lm-missing");
    expect(await codeOf(bare.deny({ reason: "no" }))).toBe("lm-missing");
    expect(await store.read("c")).toHaveLength(length);
    expect((await bare.refresh()).state).toBe("waiting");
    const [turn] = await desk.conversation("c", { store, lm }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("paid");
    expect(paid).toEqual([5, 7]);
  });

  it("an answer to one of two needs no model: written; the answer to the last is refused, and the turn still waits for it", async () => {
    const store = makeStore();
    const { bare } = await waitingTwice(store);
    const [first, second] = bare.waiting;
    expect(await bare.approve({ id: first!.id, by: "maria" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const length = (await store.read("c")).length;
    expect(await codeOf(bare.approve({ id: second!.id, by: "maria" }))).toBe("lm-missing");
    expect(await store.read("c")).toHaveLength(length);
    expect((await bare.refresh()).waiting.map((a) => a.id)).toEqual([second!.id]);
  });
});

// (a store whose lock proves a holder alive reads this turn running while its process lives: one without)
describe("no language model here, an interrupted turn", () => {
  it("a resume is refused before the turn is claimed: it stays interrupted, and goes on where a model is", async () => {
    const store = memoryStore();
    // its model never answers, and its lease (30 ms) is renewed only every second: other readers find it interrupted
    const silent = { ...scripted([]), generate: () => new Promise<never>(() => {}) };
    // (another host's holder: this process tells its own alive while their turns run here)
    void desk.conversation("c", { store: anotherHost(store), lm: silent, lease: { renewMs: 1_000, ttlMs: 30 } }).send("pay 5");
    await expect.poll(async () => (await desk.conversation("c", { store }).turns())[0]?.state).toBe("interrupted");
    const [bare] = await desk.conversation("c", { store }).turns();
    const length = (await store.read("c")).length;
    expect(await codeOf(bare!.resume())).toBe("lm-missing");
    expect(await store.read("c")).toHaveLength(length);
    expect((await bare!.refresh()).state).toBe("interrupted");
    const [turn] = await desk.conversation("c", { store, lm: scripted(["nothing to pay"]) }).turns();
    expect(await turn!.resume()).toBe("nothing to pay");
  });
});
