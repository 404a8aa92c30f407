/**
 * A person says what a tool left in doubt returned (`resume({ results })`). A result holding NaN or Infinity was
 * taken, and kept as `null` (JSON writes them so): the turn went on with a result nobody gave. It is refused
 * (`input-invalid`, naming where), nothing written, as a BigInt or a cycle already was.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { firstStartedFault } from "../fixtures/first-started-fault.js";

describe("a result given for a tool left in doubt", () => {
  it.each([
    ["NaN", { paid: Number.NaN }],
    ["Infinity", { paid: Number.POSITIVE_INFINITY }],
    ["-Infinity, nested", { lines: [{ paid: Number.NEGATIVE_INFINITY }] }],
  ])("holding %s is refused, nothing written; a finite one is taken", async (_, bad) => {
    const charge = tool("charge", { description: "Charge.", input: { cents: z.number() }, effects: "changes" }, () => ({ paid: 1 }));
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [charge] });
    const store = firstStartedFault(memoryStore(), "after-write");
    const lm = scripted([{ toolCalls: [{ name: "charge", input: { cents: 100 } }] }, "charged"]);
    await expect(desk.conversation("c", { store, lm }).send({ q: "charge 100" })).rejects.toBeInstanceOf(FunctaiError);
    const chat = desk.conversation("c", { store: store.inner, lm });
    const [turn] = await chat.turns();
    const before = (await store.inner.read("c")).length;
    const refused = await turn!.resume({ results: { 1: bad } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FunctaiError);
    expect((refused as FunctaiError).code).toBe("input-invalid");
    expect((refused as FunctaiError).message).toMatch(/charge/);
    expect((await store.inner.read("c")).length).toBe(before);
    const [again] = await chat.turns();
    expect(await again!.resume({ results: { 1: { paid: 1 } } })).toBe("charged");
  });
});
