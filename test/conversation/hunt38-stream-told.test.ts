/**
 * A conversation stream whose promise already settled on the wait (the loop
 * ended on it, was left, or the stream was awaited without a loop: `Waiting`)
 * has told its caller the turn is saved for a person. An answer given through
 * that stream afterwards was taken: the turn went on in this process with
 * nobody to tell (the stream's promise still said `Waiting` while the turn ran
 * its changing tool and ended done, or failed, unseen), and the person who then
 * answered the `Waiting` they were given was refused `approval-answered`. Such
 * an answer is refused (`turn-state`), nothing written, and the `Waiting`'s
 * turn answers the turn as the message says (src/conversation/stream.ts).
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

function desk() {
  const { d, paid } = payDesk();
  const store = memoryStore();
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  const chat = d.conversation("c", { store, lm, approve: "changes" });
  return { d, chat, store, lm, paid };
}

type Stream = AsyncIterable<{ type: string }> &
  PromiseLike<unknown> & {
    approve(o?: object): Promise<void>;
    deny(reason?: string, o?: object): Promise<void>;
    state: string;
  };

const ways: [string, (s: Stream) => Promise<void>][] = [
  [
    "the loop ended on the wait",
    async (s) => {
      for await (const e of s) void e;
    },
  ],
  [
    "the loop left on the approval",
    async (s) => {
      for await (const e of s) if (e.type === "approval") break;
    },
  ],
  ["awaited without a loop", async (s) => void (await Promise.resolve(s).catch(() => undefined))],
];

describe("an answer through a stream that already settled on the wait", () => {
  it.each(ways)(
    "chat.stream(), %s: approve() and deny() are refused (turn-state), nothing written; the Waiting's turn answers it",
    async (_, end) => {
      const { chat, store, lm, paid } = desk();
      const s = chat.stream("pay 5") as unknown as Stream;
      await end(s);
      const w = await Promise.resolve(s).catch((e: unknown) => e);
      expect(w).toBeInstanceOf(Waiting);
      const length = (await store.read("c")).length;
      await expect(s.approve({ by: "maria" })).rejects.toMatchObject({ code: "turn-state", message: expect.stringMatching(/turn\.approve/) });
      await expect(s.deny("no")).rejects.toMatchObject({ code: "turn-state" });
      await new Promise((r) => setTimeout(r, 30));
      expect(await store.read("c")).toHaveLength(length);
      expect([paid, lm.requests.length, s.state]).toEqual([[], 1, "awaitingApproval"]);
      expect(await (w as Waiting).turn.approve({ by: "maria" })).toBe("paid");
      expect([paid, lm.requests.length]).toEqual([[5], 2]);
    },
  );

  it("turn.stream() of a waiting turn, the loop ended on the wait: its answer is refused; the handle answers it", async () => {
    const { d, chat, store, lm, paid } = desk();
    await expect(chat.send("pay 5")).rejects.toBeInstanceOf(Waiting);
    const [turn] = await d.conversation("c", { store, lm }).turns();
    const s = turn!.stream() as unknown as Stream;
    for await (const e of s) void e;
    await expect(Promise.resolve(s)).rejects.toBeInstanceOf(Waiting);
    const length = (await store.read("c")).length;
    await expect(s.approve()).rejects.toMatchObject({ code: "turn-state" });
    expect(await store.read("c")).toHaveLength(length);
    expect(turn!.state).toBe("waiting");
    expect(await turn!.approve()).toBe("paid");
    expect([paid, lm.requests.length]).toEqual([[5], 2]);
  });

  it("an answer given in the loop, before it ended, still goes on here (control)", async () => {
    const { chat, paid } = desk();
    const s = chat.stream("pay 5") as unknown as Stream;
    for await (const e of s) if (e.type === "approval") void s.approve();
    expect(await s).toBe("paid");
    expect(paid).toEqual([5]);
  });
});
