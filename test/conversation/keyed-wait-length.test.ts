/**
 * A keyed send whose turn runs in another call (or process) waits for it. Each round of that wait asked the store
 * for the whole conversation to learn its length (`(await store.read(id)).length`), so a long conversation was read
 * in full five times a second for as long as the other run took. It asks the store's `length` where the store has
 * one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a keyed send waiting for its turn to run elsewhere", () => {
  it("learns the conversation's length from the store's length, not by reading it all, and answers as the other run does", async () => {
    const inner = memoryStore();
    const fullReads = { n: 0 };
    // the memory store, its whole-conversation reads counted (a read from 0 or from nothing)
    const store: Store = {
      ...inner,
      read: (conversation, after) => {
        if (!after) fullReads.n++;
        return inner.read(conversation, after);
      },
    };
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const ship = tool("ship", { description: "Ship.", input: { id: z.string() }, effects: "changes" }, async ({ id }) => {
      entered();
      await held;
      return `shipped ${id}`;
    });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [ship] });
    const lm = scripted([{ toolCalls: [{ name: "ship", input: { id: "A-1" } }] }, "shipped"]);
    const chat = desk.conversation("c", { store, lm });
    const first = chat.send({ q: "ship A-1" }, { key: "req-1" });
    await inTool;
    const before = fullReads.n;
    const second = chat.send({ q: "ship A-1" }, { key: "req-1" });
    // the second send waits for the first's turn through several rounds (each up to 200 ms)
    await new Promise((r) => setTimeout(r, 1500));
    const duringWait = fullReads.n - before;
    release();
    expect(await first).toBe("shipped");
    expect(await second).toBe("shipped");
    expect(lm.requests).toHaveLength(2);
    expect(duringWait).toBe(0);
  });
});
