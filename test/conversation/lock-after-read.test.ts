/**
 * A reader finds a turn's lock free after it read the turn's records: the
 * turn may have ended (or gone waiting) in between, its holder letting go
 * of the lock only once those records were kept. The reader reads what came
 * before it calls the turn interrupted. (Seen in the browser example: a tab
 * read a turn running, another tab ended it and let go of its Web Lock, and
 * the first tab showed it "ended in another tab (interrupted)".)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, type LanguageModel, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { heldTurns } from "./fixtures/held-turns.js";

/** A scripted model whose calls first wait for `before`. */
function gated(replies: string[], before: () => Promise<void>): LanguageModel {
  const base = scripted(replies);
  return { ...base, generate: async (request, options) => (await before(), base.generate(request, options)) };
}

const chat = ai("chat", { description: "Answer.", input: { ask: z.string() }, output: z.string() });

describe("a lock found free after the records were read", () => {
  it("a turn that ended in between reads done, not interrupted", async () => {
    const { liveness, held } = heldTurns();
    let trap: (() => Promise<void>) | null = null;
    const store: Store = Object.assign(memoryStore(), {
      liveness: {
        ...liveness,
        // the reader asks for the lock after reading the records: the turn ends before the answer comes back
        isHeld: async (c: string, turn: string) => {
          const before = trap;
          trap = null;
          await before?.();
          return liveness.isHeld(c, turn);
        },
      },
    });
    let go!: () => void;
    let asked!: () => void;
    const replied = new Promise<void>((r) => (go = r));
    const inCall = new Promise<void>((r) => (asked = r));
    const lm = gated(["hello"], async () => (asked(), await replied));
    const running = chat.conversation("c", { store, lm }).send({ ask: "hi" });
    await inCall;
    expect(held).toHaveLength(1);

    trap = async () => {
      go();
      expect(await running).toBe("hello");
      expect(held).toEqual([]); // its end kept, its lock let go
    };
    const [turn] = await chat.conversation("c", { store }).turns();
    expect(trap).toBeNull(); // the trap ran: the lock was asked about after the turn's records were read running
    expect(turn?.state).toBe("done");
    expect(turn?.value).toBe("hello");
  });

  it("a turn whose holder let go with nothing new written still reads interrupted", async () => {
    const { liveness, held } = heldTurns();
    const store: Store = Object.assign(memoryStore(), { liveness });
    let asked!: () => void;
    const inCall = new Promise<void>((r) => (asked = r));
    const lm = gated(["hello"], async () => (asked(), await new Promise<never>(() => undefined)));
    void chat.conversation("c", { store, lm }).send({ ask: "hi" }).catch(() => undefined);
    await inCall;
    held.splice(0); // its tab went away: the lock is free, its lease still stands in the log
    const [turn] = await chat.conversation("c", { store }).turns();
    expect(turn?.state).toBe("interrupted");
  });
});
