/**
 * Hunt 7, network faults (real PostgreSQL, through a TCP proxy): an append
 * that committed, whose answer never reached the host (the proxy lets the
 * server's whole answer reach it, then resets the connection). DESIGN
 * ("Durability", "Exactly once", "Many hosts: the Postgres store") and
 * README: a changing tool never runs twice, a reply is never paid twice, a
 * record said kept is never lost, and the conversation stays readable; a
 * send retried with its key starts nothing new.
 */
import { describe, expect, it } from "vitest";
import { scripted } from "../../src/testing/index.js";
import { CHARGE, LONG_LEASE, desk, onNet, outcome, rows } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER } from "./server.js";

/** Tool records of the conversation, as "<state>" in order. */
const toolStates = (r: Awaited<ReturnType<typeof rows>>) => r.filter((x) => x.kind === "tool").map((x) => x.state);

describe.skipIf(NO_SERVER !== null)("an append whose answer is lost (committed, the connection reset before the host saw it)", () => {
  it("the charge's started record: the turn fails store-io without charging; another host finds it interrupted with the charge unfinished and the step-0 reply kept", async () => {
    await onNet(async ({ schema, via, store, other }) => {
      const here = desk();
      const lm = scripted([CHARGE, { text: "done" }]);
      const cut = via.when('"state":"started"', (l) => l.cutReply());
      const sent = outcome(here.fn.conversation("c", { store, lm, lease: LONG_LEASE }).send({ id: "c" }));
      const link = await cut;
      await link.replyCutP;
      expect(await sent).toBe("error store-io");
      expect(here.state.chargeGate.started).toBe(0); // never ran: its started record was never acknowledged
      expect(lm.requests).toHaveLength(1);

      const there = desk();
      const lm2 = scripted([{ text: "done" }]);
      const chat = there.fn.conversation("c", { store: other, lm: lm2, lease: LONG_LEASE });
      const [turn] = await chat.turns();
      expect(turn!.state).toBe("interrupted"); // at once: its lock went when the turn failed
      expect(turn!.unfinished.map((u) => u.name)).toEqual(["charge"]); // the started record was kept (committed)
      expect(toolStates(await rows(schema, "c"))).toEqual(["started"]);
      await expect(turn!.resume()).rejects.toMatchObject({ code: "turn-unfinished" });
      expect(await turn!.resume({ results: { [turn!.unfinished[0]!.invocation]: "not charged" } })).toBe("done");
      expect(there.state.charges + here.state.charges).toBe(0);
      expect(lm2.requests).toHaveLength(1); // the step-0 reply was kept with the started record: not paid again
      expect((await rows(schema, "c")).map((r) => r.seq)).toEqual((await rows(schema, "c")).map((_, i) => i + 1));
      // the host that lost the answer reads the same conversation, on a fresh connection of its pool
      const [again] = await here.fn.conversation("c", { store, lm: scripted([]) }).turns();
      expect([again!.state, again!.value]).toEqual(["done", "done"]);
    });
  });

  it("the charge's done record: the turn fails store-io after charging once; another host finds it interrupted, nothing unfinished, and finishes it paying only the last reply", async () => {
    await onNet(async ({ schema, via, store, other }) => {
      const here = desk();
      const lm = scripted([CHARGE, { text: "done" }]);
      const cut = via.when('"state":"done"', (l) => l.cutReply());
      const sent = outcome(here.fn.conversation("d", { store, lm, lease: LONG_LEASE }).send({ id: "d" }));
      await (await cut).replyCutP;
      expect(await sent).toBe("error store-io");
      expect(here.state.charges).toBe(1);
      expect(lm.requests).toHaveLength(1); // the next reply was not paid: its records were not known kept

      const there = desk();
      const lm2 = scripted([{ text: "done" }]);
      const [turn] = await there.fn.conversation("d", { store: other, lm: lm2, lease: LONG_LEASE }).turns();
      expect(turn!.state).toBe("interrupted");
      expect(turn!.unfinished).toEqual([]); // the done record was kept
      expect(await turn!.resume()).toBe("done");
      expect(there.state.charges).toBe(0);
      expect(lm2.requests).toHaveLength(1);
      expect(toolStates(await rows(schema, "d"))).toEqual(["started", "done"]);
    });
  });

  it("the last reply with the turn's end: the send fails store-io, but the turn is done for every reader; sent again with its key it answers without paying or charging", async () => {
    await onNet(async ({ schema, via, store, other }) => {
      const here = desk();
      const lm = scripted([CHARGE, { text: "done" }]);
      const chat = here.fn.conversation("e", { store, lm, lease: LONG_LEASE });
      const cut = via.when('"kind":"ended"', (l) => l.cutReply());
      const sent = outcome(chat.send({ id: "e" }, { key: "k1" }));
      await (await cut).replyCutP;
      expect(await sent).toBe("error store-io");
      const [turn] = await here.fn.conversation("e", { store: other, lm: scripted([]) }).turns();
      expect([turn!.state, turn!.value]).toEqual(["done", "done"]);
      expect(await chat.send({ id: "e" }, { key: "k1" })).toBe("done");
      expect(lm.requests).toHaveLength(2);
      expect(here.state.charges).toBe(1);
      const r = await rows(schema, "e");
      expect(r.filter((x) => x.kind === "turn")).toHaveLength(1);
      expect(r.filter((x) => x.kind === "ended")).toHaveLength(1);
      expect(r.filter((x) => x.kind === "reply")).toHaveLength(2);
    });
  });

  it("the new turn's own first records: the send fails store-io; sent again with its key it goes on with that one turn (never a second), charging and paying once", async () => {
    await onNet(async ({ schema, via, store }) => {
      const here = desk();
      const lm = scripted([CHARGE, { text: "done" }]);
      const chat = here.fn.conversation("f", { store, lm, lease: LONG_LEASE });
      const cut = via.when('"kind":"turn"', (l) => l.cutReply());
      const sent = outcome(chat.send({ id: "f" }, { key: "k1" }));
      await (await cut).replyCutP;
      expect(await sent).toBe("error store-io");
      expect(lm.requests).toHaveLength(0);
      expect(await chat.send({ id: "f" }, { key: "k1" })).toBe("done");
      expect(lm.requests).toHaveLength(2);
      expect(here.state.charges).toBe(1);
      const r = await rows(schema, "f");
      expect(r.filter((x) => x.kind === "turn")).toHaveLength(1);
      expect(r.filter((x) => x.kind === "ended")).toHaveLength(1);
    });
  });
});
