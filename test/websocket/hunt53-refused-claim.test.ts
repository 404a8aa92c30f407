/**
 * A companion's yes is written, and its server goes on with the turn, but
 * the turn was claimed elsewhere first: another companion abandoned it in
 * between (it ended before it could be claimed here), or another server
 * runs it (it claimed it first). The turn never ran here, yet the stream
 * the server forwarded told the approver, and every subscriber, that it
 * did: `state: running`, then `failed` (`turn-state`) and `state: failed`
 * for a turn that reads `abandoned`, or `interrupted` for a turn that runs
 * on elsewhere (with seq numbers that clash with the real run's events).
 * The events of a refused claim are no longer sent: the approver is told
 * by its outcome (`abandoned`, or `running` with `turn-claimed`), and
 * subscribers see only what happened (the yes recorded).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { keeper, until } from "./fixtures.js";
import { heldAnswerDesk } from "./fixtures/hunt36-kit.js";

const keep = keeper();

type Companion = Awaited<ReturnType<typeof connect>>;

/** `a` says yes to the turn sam waits on; what the approver's stream and a subscribed `watcher` are told is kept. */
async function yesWatched(a: Companion, watcher: Companion) {
  const told: TurnEvent[] = [];
  watcher.on("event", ({ event }) => told.push(event));
  await watcher.waiting(); // (its subscribe went before this read: it is subscribed)
  const [w] = await a.waiting();
  const turn = w!.turn;
  const yes = a.approve({ conversation: "sam", turn, by: "a" });
  const seen: TurnEvent[] = [];
  const iterated = (async () => {
    for await (const e of yes) seen.push(e);
  })().catch(() => undefined);
  return { turn, yes, seen, told, iterated };
}

/** Neither the approver nor the subscriber was shown the turn start or end here (`ended`: the event it would end with). */
function toldNothingRan(lists: TurnEvent[][], ended: string): void {
  for (const events of lists) {
    expect(events.map((e) => e.type)).not.toContain(ended);
    expect(events.filter((e) => e.type === "state").map((e) => (e as { state: string }).state)).toEqual([]);
  }
}

describe("the events of a refused claim", () => {
  it("to an abandoned turn: neither the approver nor a subscriber is told it ran and failed", async () => {
    const { d, held } = await heldAnswerDesk();
    const server = keep(await serve({ store: held.store, programs: [d.served], port: 0 }));
    const a = keep(await connect(server.url));
    const b = keep(await connect(server.url));
    const { turn, yes, seen, told, iterated } = await yesWatched(a, keep(await connect(server.url)));
    await held.reached;
    await b.abandon({ conversation: "sam", turn });
    held.release();
    expect(await yes.outcome).toMatchObject({ state: "abandoned", error: { code: "turn-state" } });
    await iterated;
    await new Promise((r) => setTimeout(r, 200)); // (a subscriber's events go out before the reply; given time all the same)
    toldNothingRan([seen, told], "failed");
    expect(seen.map((e) => e.type)).toEqual(["approved"]); // the yes was recorded: that much happened
    expect(d.REFUNDS).toEqual([]);
  });

  it("to a turn another server runs: no interrupted told; the approver learns turn-claimed from its outcome", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { inner, d, held } = await heldAnswerDesk({ gate });
    const one = keep(await serve({ store: held.store, programs: [d.served], port: 0 }));
    const two = keep(await serve({ store: inner, programs: [d.served], port: 0 }));
    const a = keep(await connect(one.url));
    const b = keep(await connect(two.url));
    const { turn, yes, seen, told, iterated } = await yesWatched(a, keep(await connect(one.url)));
    await held.reached; // a's yes is written; its server has not gone on yet
    // b, through the other server, goes on with the answered turn: it runs there, into the refund (held at the gate)
    const running = b.resume({ conversation: "sam", turn });
    running.outcome.catch(() => undefined);
    await until(async () => (await b.status({ conversation: "sam", turn })).state === "running");
    held.release();
    const outcome = await yes.outcome;
    expect(outcome).toMatchObject({ state: "running", error: { code: "turn-claimed" } });
    await iterated;
    await new Promise((r) => setTimeout(r, 200));
    toldNothingRan([seen, told], "interrupted");
    expect(seen.map((e) => e.type)).toEqual(["approved"]);
    release();
    expect(await running).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });
});
