/**
 * Hunt 7, network faults (real PostgreSQL, through a TCP proxy): only the
 * lock session's connection (not the pool's) reset by the network while a
 * changing tool runs. DESIGN "Many hosts": a host that loses its connection
 * loses the lock, so its turn reads `interrupted` at once, with the tool
 * unfinished; a person's results or rerun finish it elsewhere, and the host
 * whose connection was cut stops before its next record or side effect.
 * liveness.ts (AdvisoryLiveness) decides what a host does when nobody took
 * the turn meanwhile: it takes its lock again and goes on.
 */
import { describe, expect, it } from "vitest";
import { scripted } from "../../src/testing/index.js";
import { CHARGE, LONG_LEASE, desk, lockSessions, onNet, outcome, rows, until } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER } from "./server.js";

/** What the lock session sends first: the session's own key (liveness.ts SESSION_LOCK). */
const SESSION_KEY = "pg_try_advisory_lock($1::int4";

describe.skipIf(NO_SERVER !== null)("the lock session's connection reset while a changing tool runs", () => {
  /** Starts the turn of `id` here, its charge held; resolves once the charge runs, with its lock session's link cut. */
  async function cutInCharge(n: Parameters<Parameters<typeof onNet>[0]>[0], id: string) {
    const here = desk();
    here.state.chargeGate.hold = true;
    const lm = scripted([CHARGE, { text: "done" }]);
    const sent = outcome(here.fn.conversation(id, { store: n.store, lm, lease: LONG_LEASE }).send({ id }));
    await until("the charge runs", () => here.state.chargeGate.started === 1);
    const locks = n.via.sentBy(SESSION_KEY);
    expect(locks).toHaveLength(1);
    expect(n.via.links.length).toBeGreaterThan(1); // the pool's connection is another, and stays
    expect(await lockSessions(n.app)).toHaveLength(1);
    locks[0]!.cut();
    return { here, lm, sent };
  }

  it("another host reads the turn interrupted at once with the charge unfinished; a person gives its result there; the charge returns here: no record, no request more", async () => {
    await onNet(async (n) => {
      const { here, lm, sent } = await cutInCharge(n, "a");
      const there = desk();
      const chat = there.fn.conversation("a", { store: n.other, lm: scripted([{ text: "done" }]), lease: LONG_LEASE });
      // the lease has a minute left: only the lock's going can say so
      await until("the turn reads interrupted", async () => (await chat.turns())[0]!.state === "interrupted", 5_000);
      const [turn] = await chat.turns();
      expect(turn!.unfinished.map((u) => u.name)).toEqual(["charge"]);
      expect(await turn!.resume({ results: { [turn!.unfinished[0]!.invocation]: "charged here" } })).toBe("done");
      const after = await rows(n.schema, "a");
      here.state.chargeGate.release();
      expect(await sent).toBe("error lease-lost");
      expect(here.state.charges).toBe(1);
      expect(lm.requests).toHaveLength(1);
      expect(await rows(n.schema, "a")).toEqual(after);
      expect(after.filter((r) => r.kind === "tool").map((r) => r.state)).toEqual(["started", "given"]);
    });
  });

  it("a person asks for a rerun there: the charge runs there once; the one here returns and writes nothing (its done is refused)", async () => {
    await onNet(async (n) => {
      const { here, lm, sent } = await cutInCharge(n, "b");
      const there = desk();
      const chat = there.fn.conversation("b", { store: n.other, lm: scripted([{ text: "done" }]), lease: LONG_LEASE });
      await until("the turn reads interrupted", async () => (await chat.turns())[0]!.state === "interrupted", 5_000);
      const [turn] = await chat.turns();
      expect(await turn!.resume({ rerun: [turn!.unfinished[0]!.invocation] })).toBe("done");
      expect(there.state.charges).toBe(1);
      const after = await rows(n.schema, "b");
      here.state.chargeGate.release();
      expect(await sent).toBe("error lease-lost");
      expect(lm.requests).toHaveLength(1);
      expect(await rows(n.schema, "b")).toEqual(after);
    });
  });

  it("nobody takes the turn meanwhile: the charge returns, the host takes its lock again on a new session and finishes, charging and paying once", async () => {
    await onNet(async (n) => {
      const { here, lm, sent } = await cutInCharge(n, "c");
      const chat = desk().fn.conversation("c", { store: n.other, lm: scripted([]) });
      await until("the turn reads interrupted", async () => (await chat.turns())[0]!.state === "interrupted", 5_000);
      here.state.chargeGate.release();
      expect(await sent).toBe("done");
      expect(here.state.charges).toBe(1);
      expect(lm.requests).toHaveLength(2);
      expect(n.via.sentBy(SESSION_KEY)).toHaveLength(2); // a new lock session
      const r = await rows(n.schema, "c");
      expect(r.filter((x) => x.kind === "tool").map((x) => x.state)).toEqual(["started", "done"]);
      expect(new Set(r.filter((x) => x.kind === "lease").map((x) => x.attempt))).toEqual(new Set([1]));
    });
  });
});
