/**
 * A turn handle's `approve()` / `deny()` without an id answered every
 * approval the turn waits on *now*, not those the handle shows (`waiting`).
 * A handle read while the turn waited on `pay 5`, whose turn another person
 * approved meanwhile and which went on to wait on `pay 500`, said yes to the
 * 500 nobody here was shown: the payment ran. A stream (`among` what it
 * shows) and the WebSocket server (`shown`) already hold an id-less answer
 * to what was shown; a handle now does the same: the stale answer is
 * refused (`approval-answered`), nothing written or run, and the handle then
 * shows what waits now, for an answer given knowingly.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { heldTurns } from "./fixtures/held-turns.js";
import { payDesk } from "./fixtures/pay-desk.js";

/** A desk whose turn waits on pay 5, then (once approved) on pay 500; and a handle read during the first wait. */
async function twoWaits(withLiveness: boolean) {
  const { d: desk, paid } = payDesk();
  const base = memoryStore();
  const store: Store = withLiveness ? Object.assign(Object.create(base) as Store, { liveness: heldTurns().liveness }) : base;
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, { toolCalls: [{ name: "pay", input: { amount: 500 } }] }, "done"]);
  await expect(desk.conversation("c", { store, lm, approve: "changes" }).send("pay")).rejects.toBeInstanceOf(Waiting);
  const [stale] = await desk.conversation("c", { store, lm }).turns();
  const [other] = await desk.conversation("c", { store, lm }).turns();
  expect(stale!.waiting.map((a) => a.input)).toEqual([{ amount: 5 }]);
  const again = await other!.approve({ by: "ana" }).catch((e: unknown) => e);
  expect(again).toBeInstanceOf(Waiting); // pay 5 ran, and the turn waits on pay 500
  expect((again as Waiting).approvals.map((a) => a.input)).toEqual([{ amount: 500 }]);
  expect(paid).toEqual([5]);
  return { stale: stale!, paid, base, lm };
}

describe("an id-less answer from a stale handle", () => {
  for (const liveness of [false, true])
    describe(liveness ? "a store whose lock proves a holder alive" : "a memory store", () => {
      it.each([
        ["approve", (t: Awaited<ReturnType<typeof twoWaits>>["stale"]) => t.approve({ by: "sam" })],
        ["deny", (t: Awaited<ReturnType<typeof twoWaits>>["stale"]) => t.deny({ by: "sam", reason: "no" })],
      ])(
        "%s() answers only what the handle showed: refused (approval-answered), nothing written; the handle then shows pay 500",
        async (_, answer) => {
          const { stale, paid, base, lm } = await twoWaits(liveness);
          const length = (await base.read("c")).length;
          await expect(answer(stale)).rejects.toMatchObject({ code: "approval-answered" });
          expect(await base.read("c")).toHaveLength(length);
          expect([paid, lm.requests.length]).toEqual([[5], 2]);
          expect([stale.state, stale.waiting.map((a) => a.input)]).toEqual(["waiting", [{ amount: 500 }]]);
          // shown now: answered knowingly, it goes on
          expect(await stale.approve({ by: "sam" })).toBe("done");
          expect([paid, lm.requests.length]).toEqual([[5, 500], 3]);
        },
      );
    });

  it("a handle read before another person answered one of two: its answer to all answers the one still waiting (control)", async () => {
    const { d: desk, paid } = payDesk();
    const store = memoryStore();
    const lm = scripted([
      {
        toolCalls: [
          { name: "pay", input: { amount: 5 } },
          { name: "pay", input: { amount: 6 } },
        ],
      },
      "done",
    ]);
    await expect(desk.conversation("c", { store, lm, approve: "changes" }).send("pay")).rejects.toBeInstanceOf(Waiting);
    const [mine] = await desk.conversation("c", { store, lm }).turns();
    const [theirs] = await desk.conversation("c", { store, lm }).turns();
    await expect(theirs!.deny({ id: theirs!.waiting[0]!.id, reason: "not 5" })).rejects.toBeInstanceOf(Waiting);
    expect(await mine!.approve()).toBe("done");
    expect(paid).toEqual([6]);
  });
});

describe("an id-less answer from a handle read while the turn ran", () => {
  it("shows nothing to answer: refused (approval-unknown) naming what waits now, nothing written; refreshed, it answers", async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, async () => (await gate, "seen"));
    const { d: desk, paid } = payDesk(look);
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, { toolCalls: [{ name: "pay", input: { amount: 9 } }] }, "done"]);
    const sent = desk
      .conversation("c", { store, lm, approve: "changes" })
      .send("pay")
      .catch((e: unknown) => e);
    let early: Awaited<ReturnType<ReturnType<typeof desk.conversation>["turns"]>>[number] | undefined;
    while (!early) [early] = await desk.conversation("c", { store, lm }).turns();
    expect([early.state, early.waiting]).toEqual(["running", []]);
    release();
    expect(await sent).toBeInstanceOf(Waiting);
    const length = (await store.read("c")).length;
    await expect(early.approve()).rejects.toMatchObject({ code: "approval-unknown", message: expect.stringMatching(/desk\/pay #2.*refresh\(\)/) });
    expect(await store.read("c")).toHaveLength(length);
    expect([early.state, early.waiting.map((a) => a.input), paid]).toEqual(["waiting", [{ amount: 9 }], []]);
    expect(await early.approve()).toBe("done");
    expect(paid).toEqual([9]);
  });
});

describe("an answer given again by the handle that answered", () => {
  it("approve() again after its turn went on and ended: approval-answered (as before), nothing written", async () => {
    const { d: desk, paid } = payDesk();
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const w = await desk
      .conversation("c", { store, lm, approve: "changes" })
      .send("pay")
      .catch((e: unknown) => e);
    const turn = (w as Waiting).turn;
    expect(await turn.approve({ by: "maria" })).toBe("done");
    const length = (await store.read("c")).length;
    await expect(turn.approve({ by: "kim" })).rejects.toMatchObject({ code: "approval-answered" });
    await expect(turn.deny({ by: "kim" })).rejects.toMatchObject({ code: "approval-answered" });
    expect(await store.read("c")).toHaveLength(length);
    expect(paid).toEqual([5]);
  });
});
