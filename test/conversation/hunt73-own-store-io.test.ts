/**
 * A turn whose own records the store refused stops without ending (it reads
 * `interrupted`, resumable). An error the turn's *program* raised is not the
 * store failing, whatever its code: a program (or a tool) that throws its own
 * `FunctaiError("store-io", …)` (its own database is down) fails its turn,
 * `failed` in the records with that error, as any other error it throws does.
 * Told apart by where the error came from (functai's calls to the
 * conversation's store), never by its code.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, FunctaiError, memoryStore, program, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

describe("a store-io the turn's own code raised", () => {
  it("a program that throws its own store-io fails its turn (recorded failed); a keyed retry is told it, nothing runs again", async () => {
    let ran = 0;
    const ledgerDown = new FunctaiError("store-io", "the ledger database is down");
    const settle = program("settle", { description: "Settle.", input: { order: z.string() } }, () => {
      ran += 1;
      throw ledgerDown;
    });
    const store = memoryStore();
    const chat = settle.conversation("c", { store });
    await expect(chat.send("A-1", { key: "req-1" })).rejects.toBe(ledgerDown);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("failed");
    expect(turn!.error).toEqual({ code: "store-io", message: "the ledger database is down" });
    // the same request again: told what the first send was told, the body not run a second time
    await expect(chat.send("A-1", { key: "req-1" })).rejects.toMatchObject({ code: "store-io", message: "the ledger database is down" });
    expect(ran).toBe(1);
    // and a new send is not refused, nor queued behind a turn that reads running
    expect((await store.read("c")).filter((r) => r.kind === "ended")).toHaveLength(1);
  });

  it("a tool that throws its own store-io fails its turn; the reply before it is not paid for again by a retry", async () => {
    const book = tool("book", { description: "Book.", input: { slot: z.string() }, effects: "reads" }, () => {
      throw new FunctaiError("store-io", "the booking service's database is down");
    });
    const desk = ai("desk", { description: "Book.", input: { ask: z.string() }, tools: [book] });
    const lm = scripted([{ toolCalls: [{ name: "book", input: { slot: "9:00" } }] }, "booked"]);
    const chat = desk.conversation("c", { store: memoryStore(), lm, toolErrors: "raise" });
    await expect(chat.send("book 9:00", { key: "req-1" })).rejects.toMatchObject({ code: "tool-failed", cause: { code: "store-io" } });
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("failed");
    await expect(chat.send("book 9:00", { key: "req-1" })).rejects.toMatchObject({ code: "tool-failed", message: /booking service/ });
    expect(lm.requests).toHaveLength(1);
  });

  it("(guard) the store refusing a delegated turn's records still leaves the caller interrupted, resumable", async () => {
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "reads" }, ({ amount }) => `paid ${amount}`);
    const payer = ai("payer", { description: "Pay.", input: { amount: z.number() }, tools: [pay] });
    const desk = ai("desk", { description: "Pay through payer.", input: { ask: z.string() }, tools: [delegate(payer)] });
    let struck = false;
    const store = faultyStore(memoryStore(), {
      failOn: (call) => {
        if (struck || !call.conversation.includes("payer")) return undefined;
        if (!call.records.some((r) => (r as { kind?: string }).kind === "reply")) return undefined;
        struck = true;
        return "before-write";
      },
    });
    const lm = scripted([
      { toolCalls: [{ name: "payer", input: { amount: 5 } }] },
      { toolCalls: [{ name: "pay", input: { amount: 5 } }] },
      "paid",
      "all paid",
    ]);
    const chat = desk.conversation("c", { store, lm });
    await expect(chat.send("pay 5", { key: "req-1" })).rejects.toMatchObject({ code: "store-io" });
    expect(struck).toBe(true);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
  });
});
