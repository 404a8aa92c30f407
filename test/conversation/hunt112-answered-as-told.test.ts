/**
 * Hunt 112: a send whose turn stops for a person reads the turn twice once
 * its wait is kept: its records (does it still wait?), then the handle its
 * `Waiting` holds. A person who answered in between (a dashboard shown the
 * wait the moment it was written) ran the turn to its end elsewhere, and
 * the send still rejected with `Waiting`: a turn `done`, no approval to
 * answer ("waits for a person's answer ()"), whose answer the caller never
 * got; answering it was refused (approval-answered). Hunt 68 mended this for
 * an answer's own wait; a send now settles as the records say too: the
 * turn's answer once it ended done there.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

/**
 * A store over `inner` whose `at`-th read made once the turn's wait is in the store first lets `answer` run to its
 * end (another process, on `inner` itself).
 */
function answeredAtRead(inner: Store, at: number, answer: () => Promise<unknown>): { store: Store; answered: () => boolean } {
  let reads = 0;
  let answered = false;
  const read: Store["read"] = async (id, from) => {
    const waits = (await inner.read(id)).some((r) => r.kind === "waiting");
    if (waits && !answered && ++reads === at) {
      answered = true;
      await answer();
    }
    return inner.read(id, from);
  };
  return { store: Object.assign(Object.create(inner) as Store, { read }), answered: () => answered };
}

describe("a send whose turn is answered elsewhere as its wait is told", () => {
  it("answered between its two reads: resolves to the turn's answer, never a Waiting with nothing to answer", async () => {
    const { d: desk, paid } = payDesk();
    const inner = memoryStore();
    const elsewhere = scripted(["paid"]);
    const { store, answered } = answeredAtRead(inner, 2, async () => {
      const [turn] = await desk.conversation("c", { store: inner, lm: elsewhere }).turns();
      return turn!.approve({ by: "maria" });
    });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "not asked here"]);
    const got = await desk
      .conversation("c", { store, lm, approve: "changes" })
      .send({ ask: "pay 5" })
      .catch((e: unknown) => e);
    expect(answered()).toBe(true);
    expect(got).not.toBeInstanceOf(Waiting);
    expect(got).toBe("paid");
    expect([paid, lm.requests.length, elsewhere.requests.length]).toEqual([[5], 1, 1]);
  });

  it("answered after it was told (control): a Waiting naming the approval, the turn waiting", async () => {
    const { d: desk } = payDesk();
    const inner = memoryStore();
    const { store } = answeredAtRead(inner, 99, async () => undefined);
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    const got = await desk
      .conversation("c", { store, lm, approve: "changes" })
      .send({ ask: "pay 5" })
      .catch((e: unknown) => e);
    expect(got).toBeInstanceOf(Waiting);
    expect([(got as Waiting).turn.state, (got as Waiting).approvals.map((a) => a.invocation)]).toEqual(["waiting", [1]]);
  });
});
