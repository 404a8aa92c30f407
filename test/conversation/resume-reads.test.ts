/**
 * Going on with a turn the conversation has read: the turn journals from
 * the records its conversation walked, and reads only what came since (never
 * the whole conversation again: on a store without a read cache, such as
 * PostgreSQL, that is every record of the turn once more). What another
 * process appended after the read is in the journal all the same.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConversationError, ai, memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { heldTurns } from "./fixtures/held-turns.js";

/** A store that notes from where every read and scan starts. */
function noting(inner: Store): Store & { from: number[] } {
  const from: number[] = [];
  const store: Store & { from: number[] } = Object.assign(Object.create(inner) as Store, {
    from,
    read: (id: string, after?: number) => (from.push(after ?? 0), inner.read(id, after)),
  });
  const scan = inner.scan?.bind(inner);
  if (scan) store.scan = (id, after, visit) => (from.push(after), scan(id, after, visit));
  return store;
}

const lookups = (n: number) => Array.from({ length: n }, (_, k) => ({ toolCalls: [{ id: `look-${k}`, name: "look", input: { k } }] }));

function desk(ran: string[]) {
  const look = tool("look", { description: "Look.", input: { k: z.number() }, effects: "reads" }, ({ k }) => (ran.push(`look ${k}`), `seen ${k}`));
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (ran.push(`pay ${amount}`), `paid ${amount}`));
  return ai("desk", { description: "Look, then pay.", input: { ask: z.string() }, tools: [look, pay], maxSteps: 10 });
}

/** A conversation "r" on a memory store whose turn looked once, then waits for two payments to be approved. */
async function waitingOnTwoPayments() {
  const ran: string[] = [];
  const fn = desk(ran);
  const base = memoryStore();
  const both = { toolCalls: [{ id: "pay-1", name: "pay", input: { amount: 1 } }, { id: "pay-2", name: "pay", input: { amount: 2 } }] };
  await expect(fn.conversation("r", { store: base, approve: "changes" }).send("pay both", { lm: scripted([...lookups(1), both]) })).rejects.toBeInstanceOf(Waiting);
  return { ran, fn, base };
}

/** `base`, with the kinds of each batch appended noted in `appends`, and any other members given (`liveness`). */
function notingAppends(base: Store, more: Partial<Store> = {}): { store: Store; appends: string[][] } {
  const appends: string[][] = [];
  const store: Store = Object.assign(Object.create(base) as Store, {
    append: (id: string, records: readonly object[], options?: { expect?: number }) => (
      appends.push(records.map((r) => (r as { kind: string }).kind)), base.append(id, records, options)
    ),
    ...more,
  });
  return { store, appends };
}

describe("going on with a turn the conversation read", () => {
  it("replays from the records it walked: no read from the start, no reply paid again, no tool run again", async () => {
    const ran: string[] = [];
    const fn = desk(ran);
    const base = memoryStore();
    const first = fn.conversation("r", { store: base, approve: "changes" });
    const steps = [...lookups(3), { toolCalls: [{ id: "pay-1", name: "pay", input: { amount: 5 } }] }];
    await expect(first.send("pay 5", { lm: scripted(steps) })).rejects.toBeInstanceOf(Waiting);
    expect(ran).toEqual(["look 0", "look 1", "look 2"]);

    const store = noting(base);
    const lm = scripted(["paid 5 after 3 looks"]);
    const [turn] = await fn.conversation("r", { store, lm }).turns();
    expect(store.from).toEqual([0]); // the conversation read once, whole
    store.from.length = 0;
    expect(await turn!.approve({ by: "sam" })).toBe("paid 5 after 3 looks");
    expect(store.from.length).toBeGreaterThan(0);
    expect(store.from.filter((after) => after === 0)).toEqual([]);
    expect(lm.requests).toHaveLength(1); // the recorded replies were not asked for again
    expect(ran).toEqual(["look 0", "look 1", "look 2", "pay 5"]);
  });

  it("has in its journal what another process appended after the read (its approval of one of two calls)", async () => {
    const { ran, fn, base } = await waitingOnTwoPayments();

    const store = noting(base);
    const lm = scripted(["paid both"]);
    const [mine] = await fn.conversation("r", { store, lm }).turns();
    const [theirs] = await fn.conversation("r", { store: base }).turns(); // another process
    const [one, two] = theirs!.waiting;
    await expect(theirs!.approve({ by: "ana", id: one!.id })).rejects.toBeInstanceOf(Waiting); // one of two: it still waits
    store.from.length = 0;
    expect(await mine!.approve({ by: "sam", id: two!.id })).toBe("paid both");
    expect(store.from.filter((after) => after === 0)).toEqual([]);
    expect(lm.requests).toHaveLength(1);
    expect(ran).toEqual(["look 0", "pay 1", "pay 2"]); // ana's approval was in the journal: both ran, once each
  });

  it("an answer to all of a turn's approvals is written in the append that claims the turn (one write); a stale handle's answer is refused", async () => {
    const { ran, fn, base } = await waitingOnTwoPayments();
    const { store, appends } = notingAppends(base);
    const [mine] = await fn.conversation("r", { store, lm: scripted(["paid both"]) }).turns();
    const [stale] = await fn.conversation("r", { store: base }).turns(); // read while it waits, answered after
    expect(await mine!.deny({ by: "sam", reason: "not today" })).toBe("paid both");
    expect(appends[0]).toEqual(["approval", "approval", "lease"]);
    expect(appends.flat().filter((k) => k === "lease")).toEqual(["lease"]);
    expect(mine!.state).toBe("done");
    expect(ran).toEqual(["look 0"]); // denied: neither ran
    const records = await base.read("r");
    const lease = records.filter((r) => (r as { kind: string }).kind === "lease").at(-1) as unknown as { attempt: number };
    expect(lease.attempt).toBe(2);
    await expect(stale!.approve({ by: "ana" })).rejects.toMatchObject({ code: "approval-answered" });
    expect(await base.read("r")).toHaveLength(records.length); // the refusal wrote nothing
    expect(stale!.state).toBe("done");
  });

  it("an answer to all, from a handle read before another process answered one of them, answers the rest and claims in one append", async () => {
    const { ran, fn, base } = await waitingOnTwoPayments();
    const { store, appends } = notingAppends(base);
    const [mine] = await fn.conversation("r", { store, lm: scripted(["paid both"]) }).turns();
    const [theirs] = await fn.conversation("r", { store: base }).turns();
    await expect(theirs!.approve({ by: "ana", id: theirs!.waiting[0]!.id })).rejects.toBeInstanceOf(Waiting);
    expect(mine!.waiting).toHaveLength(2); // (read before ana answered)
    expect(await mine!.deny({ by: "sam", reason: "one is enough" })).toBe("paid both");
    expect(appends[0]).toEqual(["approval", "lease"]); // only the call still waiting is answered here
    expect(ran).toEqual(["look 0", "pay 1"]); // ana's yes ran, sam's no did not
    const answers = (await base.read("r")).filter((r) => (r as { kind: string }).kind === "approval") as unknown as { by: string; verdict: string }[];
    expect(answers.map((a) => [a.by, a.verdict])).toEqual([["ana", "yes"], ["sam", "no"]]);
  });

  it("on a store whose lock proves a holder alive, the answer is written on its own first, and a refused answer takes no lock", async () => {
    const { ran, fn, base } = await waitingOnTwoPayments();
    const { liveness, held } = heldTurns();
    const { store, appends } = notingAppends(base, { liveness });
    const [mine] = await fn.conversation("r", { store, lm: scripted(["paid both"]) }).turns();
    const [stale] = await fn.conversation("r", { store }).turns();
    expect(await mine!.approve({ by: "sam" })).toBe("paid both");
    expect(appends[0]).toEqual(["approval", "approval"]);
    expect(appends[1]).toEqual(["lease"]);
    expect(ran).toEqual(["look 0", "pay 1", "pay 2"]);
    expect(held).toEqual([]); // let go when the turn ended
    await expect(stale!.approve({ by: "ana" })).rejects.toMatchObject({ code: "approval-answered" });
    expect(held).toEqual([]);
  });

  it("a claim the store fails (store-io) lets go of the liveness lock taken for it: the answered turn goes on elsewhere", async () => {
    const { ran, fn, base } = await waitingOnTwoPayments();
    const { liveness, held } = heldTurns();
    const store: Store = Object.assign(Object.create(base) as Store, {
      append: (id: string, records: readonly object[], options?: { expect?: number }) =>
        records.some((r) => (r as { kind: string }).kind === "lease")
          ? Promise.reject(new ConversationError("store-io", "the disk is gone"))
          : base.append(id, records, options),
      liveness,
    });
    const [turn] = await fn.conversation("r", { store, lm: scripted([]) }).turns();
    await expect(turn!.approve({ by: "sam" })).rejects.toMatchObject({ code: "store-io" });
    expect(held).toEqual([]);
    const [later] = await fn.conversation("r", { store: base, lm: scripted(["paid both"]) }).turns();
    expect([later!.state, later!.waiting]).toEqual(["waiting", []]); // answered, never claimed
    expect(await later!.resume()).toBe("paid both");
    expect(ran).toEqual(["look 0", "pay 1", "pay 2"]);
  });
});
