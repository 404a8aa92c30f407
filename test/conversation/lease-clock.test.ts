/**
 * Leases on a fake clock: the life of a lease (renewed while its holder
 * lives, interrupted once it ran out, claimed by one other process, and the
 * old holder stopped before its next side effect) without sleeping.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { fakeClock, memoryStore, scripted } from "../../src/testing/index.js";
import { anotherHost } from "../fixtures/another-host.js";

const LEASE = { renewMs: 1_000, ttlMs: 3_000 };

/** A desk whose `pay` tool waits at a gate the test opens; `paid` counts the payments. */
function gatedDesk() {
  const paid: number[] = [];
  let open!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const inside = new Promise<void>((r) => (entered = r));
  const look = tool("look", { description: "Look.", input: { n: z.number() }, effects: "reads" }, async ({ n }) => {
    entered();
    await gate;
    return `saw ${n}`;
  });
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const desk = ai("desk", { description: "Look, then pay.", input: { ask: z.string() }, tools: [look, pay] });
  const lm = () => scripted([{ toolCalls: [{ name: "look", input: { n: 1 } }] }, { toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
  return { desk, lm, paid, open, inside };
}

const leases = async (store: ReturnType<typeof memoryStore>) => (await store.read("c")).filter((r) => r.kind === "lease") as unknown as { at: string; until: string; attempt: number }[];

describe("leases on a fake clock", () => {
  it("renewals keep a turn running for other readers through many ttls; each lease lasts ttlMs on the clock", async () => {
    const clock = fakeClock();
    const store = memoryStore();
    const d = gatedDesk();
    const sent = d.desk.conversation("c", { store, clock, lm: d.lm(), lease: LEASE }).send("go");
    await d.inside;
    const reader = d.desk.conversation("c", { store, clock });
    for (let i = 0; i < 10; i++) {
      await clock.advance(1_000); // the holder renews each second: ten seconds, more than three ttls
      expect((await reader.turns())[0]!.state).toBe("running");
    }
    d.open();
    expect(await sent).toBe("done");
    const kept = await leases(store);
    expect(kept.length).toBeGreaterThanOrEqual(10);
    for (const l of kept) expect(Date.parse(l.until) - Date.parse(l.at)).toBe(LEASE.ttlMs);
    expect(d.paid).toEqual([5]);
  });

  it("a holder whose clock stands still is interrupted once its lease ran out; one other process claims it; the old holder stops before paying", async () => {
    const store = memoryStore();
    const d = gatedDesk();
    const frozen = fakeClock(); // the holder's time does not move: it never renews (as if it hung)
    // (another host's holder: this process tells its own alive while their turns run here, whatever their lease says)
    const sent = d.desk.conversation("c", { store: anotherHost(store), clock: frozen, lm: d.lm(), lease: LEASE }).send("go");
    void sent.catch(() => undefined);
    await d.inside;
    const clock = fakeClock(); // everyone else's
    const other = d.desk.conversation("c", { store, clock, lm: d.lm(), lease: LEASE });
    const [turn] = await other.turns();
    expect(turn!.state).toBe("running"); // its lease has not run out yet
    await expect(turn!.resume()).rejects.toMatchObject({ code: "turn-claimed" });
    await clock.advance(LEASE.ttlMs - 1);
    expect((await turn!.refresh()).state).toBe("running");
    await clock.advance(2);
    expect((await turn!.refresh()).state).toBe("interrupted");
    // claimed here (attempt 2), run on here from its journal: look is a reading tool, so it runs again, and pay once
    const resumed = turn!.resume();
    // the gate opens once the claim is kept: the old holder (its clock frozen, its lease good by it) would pay otherwise,
    // its `started` written before the claim, and the resumed turn would rightly find the payment unfinished
    while (!(await leases(store)).some((l) => l.attempt === 2)) await new Promise((r) => setTimeout(r, 1));
    d.open();
    expect(await resumed).toBe("done");
    expect((await leases(store)).map((l) => l.attempt)).toContain(2);
    // the old holder's next write finds the newer claim: it stops without paying again
    await expect(sent).rejects.toMatchObject({ code: "lease-lost" });
    expect(d.paid).toEqual([5]);
  });
});
