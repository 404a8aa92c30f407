/**
 * A keyed send "answers as the first turn does" (README, DESIGN: a client may
 * retry a send after a network or store error without starting two turns).
 * Two retries of one request at once (a double click, a client that retries
 * on a timeout while its first retry is still on its way), whose turn the
 * store's failure left interrupted: both went on with the turn, one won the
 * claim and the other rejected `turn-claimed`, though its request was being
 * answered. It now waits for the turn, and answers as it does.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

describe("two retries of one keyed request at once", () => {
  it("after a store error left the turn interrupted: both answer as the turn does; it runs once, nothing is paid twice", async () => {
    let looks = 0;
    const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, async () => {
      looks += 1;
      await new Promise((r) => setTimeout(r, 20));
      return "shipped";
    });
    const desk = ai("desk", { description: "Answer.", input: { ask: z.string() }, tools: [look] });
    let refuse = true;
    const store = faultyStore(memoryStore(), {
      failOn: (call) => {
        if (!refuse || !call.records.some((r) => (r as { kind?: string }).kind === "ended")) return undefined;
        refuse = false;
        return "before-write";
      },
    });
    const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, "it shipped", "asked again", "and again"]);
    const chat = desk.conversation("c", { store, lm });
    await expect(chat.send("where is it?", { key: "req-1" })).rejects.toMatchObject({ code: "store-io" });
    const requestsBefore = lm.requests.length;
    const outcome = (p: Promise<string>) =>
      p.then(
        (value) => ({ value }),
        (e: unknown) => ({ code: (e as { code?: unknown }).code }),
      );
    const both = await Promise.all([outcome(chat.send("where is it?", { key: "req-1" })), outcome(chat.send("where is it?", { key: "req-1" }))]);
    expect(both[0]).toEqual(both[1]);
    expect(both[0]).toHaveProperty("value");
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("done");
    expect(lm.requests.length - requestsBefore).toBe(0); // its replies were kept (the one refused with its end, with its let-go)
    expect(looks).toBe(1);
  });
});
