import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, isFunctaiError, Waiting } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

describe("records are made by one checked builder per kind", () => {
  it("stamps the format, the kind and the time", () => {
    const at = Date.UTC(2026, 8, 30, 10);
    expect(makeRecord("stop", { turn: "t1" }, at)).toEqual({ functai_conversation: 1, kind: "stop", at: "2026-09-30T10:00:00.000Z", turn: "t1" });
  });

  it("refuses a record its schema does not take (record-invalid), naming the key", () => {
    let error: unknown;
    try {
      makeRecord("lease", { turn: "t1", holder: "h", until: "not a time", attempt: 1 }, Date.now());
    } catch (e) {
      error = e;
    }
    expect(isFunctaiError(error, "record-invalid")).toBe(true);
    expect((error as Error).message).toMatch(/lease record.*until/);
  });

  it("an answer whose record would fail its schema is refused before anything is appended (the handle checks it first)", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] }, echoLast]);
    const store = memoryStore();
    const chat = desk.conversation("c", { store, lm, approve: "changes" });
    expect(await chat.send("go").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const before = (await store.read("c")).length;
    const [turn] = await chat.turns();
    // `by` is a string or null: a number (from untyped JavaScript, say) is the caller's slip, refused before anything
    // is written (input-invalid), never a record-invalid (a bug of ours)
    const error = await turn!.approve({ by: 42 as unknown as string }).catch((e: unknown) => e);
    expect(isFunctaiError(error, "input-invalid")).toBe(true);
    expect((error as Error).message).toMatch(/by is a string or null/);
    expect((await store.read("c")).length).toBe(before);
    expect(t.REFUNDS).toEqual([]);
    // the turn still waits, and a well-formed answer goes on with it
    const [again] = await chat.turns();
    expect(again!.state).toBe("waiting");
    expect(await again!.approve({ by: "maria" })).toBe("saw: refunded 1 for A");
    expect(t.REFUNDS).toEqual([["A", 1]]);
    // the handle is current after its own action
    expect([again!.state, again!.value, again!.waiting]).toEqual(["done", "saw: refunded 1 for A", []]);
  });
});
