/**
 * A stream whose turn is interrupted ends its iteration: nothing in this
 * process goes on with that actor (a person resumes the turn through a new
 * handle, with a stream of its own). Before, `for await` waited forever after
 * the `interrupted` event, though the stream's promise had already rejected.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Journal } from "../../src/engine/journal.js";
import { LeaseLost } from "../../src/engine/runtime.js";
import { ai } from "../../src/index.js";
import { faultyStore, memoryStore, scripted } from "../../src/testing/index.js";
import { resultOf } from "../../src/turn/run.js";
import { startTurn, tell } from "../../src/turn/session.js";
import { TurnStream } from "../../src/turn/stream.js";

/** The events' types (states with their name), or "hung" when the loop did not end within a second. */
async function loop(events: AsyncIterable<{ type: string; state?: string }>): Promise<string[] | "hung"> {
  const seen: string[] = [];
  const ended = (async () => {
    for await (const e of events) seen.push(e.type === "state" ? `state:${e.state}` : e.type);
    return seen;
  })();
  return Promise.race([ended, new Promise<"hung">((r) => setTimeout(() => r("hung"), 1000))]);
}

describe("a stream whose turn is interrupted", () => {
  it("a conversation's, whose store fails under it: the loop ends on the interruption", async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() } });
    // the first append (the turn, its lease) is kept; every later one fails
    const store = faultyStore(memoryStore(), { failOn: (c) => (c.call >= 2 ? "before-write" : undefined) });
    const s = fn.conversation("c", { store, lm: scripted(["hi"]) }).stream("x");
    const seen = await loop(s);
    expect(seen).not.toBe("hung");
    expect((seen as string[]).slice(-2)).toEqual(["interrupted", "state:interrupted"]);
    expect(await s.then(() => "answered", (e: unknown) => (e as { code?: string }).code)).toBe("store-io");
  });

  it("an in-process one, whose run lost its lease: the loop ends on the interruption, and the actor with it (nothing here can resume it)", async () => {
    const session = startTurn(
      {
        turn: "t1",
        name: "f",
        mode: "stream",
        journal: () => new Journal({ turn: "t1", attempt: 1 }),
        execute: async () => {
          throw new LeaseLost("taken by another process");
        },
      },
      { streaming: true },
    );
    const s = new TurnStream(session, { endsWhenWaiting: false, approve: async () => undefined, deny: async () => undefined, abort: () => tell(session, { type: "STOP" }) }, resultOf(session));
    session.actor.start();
    expect(await loop(s)).toEqual(["state:running", "interrupted", "state:interrupted"]);
    expect(s.state).toBe("stopped");
    expect(s.actor.getSnapshot().status).toBe("done");
  });
});
