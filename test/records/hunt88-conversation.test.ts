/**
 * Hunt 88, as a user meets it: a conversation whose store holds a damaged
 * record is refused (`store-corrupt`), never read as another state.
 *
 * - An `ended` record whose format number is 0 (or negative, or not whole)
 *   is no later format: it was skipped quietly, so a done turn read as one
 *   that never ended (and could run again).
 * - A record whose `seq` repeats one before it (a line duplicated by a
 *   merge or a restore): an old `waiting` record put back after the turn
 *   was answered and resumed read as a turn waiting for a person again.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type ConversationRecord, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });

describe("hunt 88: a conversation with a damaged record is refused", () => {
  it("an ended record with functai_conversation 0: store-corrupt, nothing asked or written", async () => {
    const first = memoryStore();
    expect(await desk.conversation("c", { store: first, lm: scripted(["hello"]) }).send("hi")).toBe("hello");
    const store = memoryStore();
    await store.append(
      "c",
      (await first.read("c")).map(({ seq: _seq, ...r }) => (r.kind === "ended" ? { ...r, functai_conversation: 0 } : r)),
    );
    const length = (await store.read("c")).length;
    const lm = scripted(["again"]);
    const chat = desk.conversation("c", { store, lm });
    await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(/ended/) });
    await expect(chat.send("hi again")).rejects.toMatchObject({ code: "store-corrupt" });
    expect(lm.requests).toHaveLength(0);
    expect(await store.read("c")).toHaveLength(length);
  });

  it("a waiting record duplicated (same seq) after the turn was answered: store-corrupt, not waiting again", async () => {
    const inner = memoryStore();
    const lm = scripted([{ toolCalls: [{ id: "p1", name: "pay", input: { amount: 5 } }] }, "paid it"]);
    const chat = desk.conversation("w", { store: inner, approve: "changes", lm });
    const waiting = await chat.send("pay 5").catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    const [turn] = await chat.turns();
    expect(await turn!.approve({ by: "maria" })).toBe("paid it");
    const records = await inner.read("w");
    const old = records.find((r) => r.kind === "waiting")!;
    // the store reads back the old waiting record once more, at its own seq, at the end (a duplicated line)
    const damaged: Store = {
      append: (id, rs, opts) => inner.append(id, rs, opts),
      read: async (id, after) => {
        const got = await inner.read(id, after);
        return id === "w" && !after ? [...got, { ...old } as ConversationRecord] : got;
      },
    };
    const again = desk.conversation("w", { store: damaged, lm: scripted(["more"]) });
    await expect(again.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(new RegExp(`record ${old.seq}\\b`)) });
  });
});
