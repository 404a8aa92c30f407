/**
 * Conversation handles are typed from their function: checked by `tsc
 * --noEmit` (this file is in tsconfig.json), and run as a plain test.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ai, program, type Waiting, type Turn, type TurnEvent } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import type { Conversation, SendOptions } from "../../src/conversation/conversation.js";

const quote = ai("quote", { description: "A price.", input: { item: z.string() }, output: z.object({ price: z.number() }) });
const echo = program("echo", { description: "Echo.", input: { text: z.string() }, output: z.number() }, ({ text }) => text.length);

describe("typed conversation handles", () => {
  it("fn.conversation is Conversation<I, O>; turns() are Turn<O>; send, approve, deny, resume give O", async () => {
    const chat = quote.conversation("c", { store: memoryStore(), lm: scripted(['{"price": 3}']) });
    expectTypeOf(chat).toExtend<Conversation<unknown, { price: number }>>();
    expectTypeOf(chat.send).returns.toEqualTypeOf<Promise<{ price: number }>>();
    expectTypeOf(await chat.send({ item: "tea" })).toEqualTypeOf<{ price: number }>();
    // @ts-expect-error: the input is checked against the function's own
    void chat.send({ itme: "tea" }).catch(() => undefined);
    const [turn] = await chat.turns();
    expectTypeOf(turn!).toEqualTypeOf<Turn<{ price: number }>>();
    expectTypeOf(turn!.approve).returns.toEqualTypeOf<Promise<{ price: number }>>();
    expectTypeOf(turn!.deny).returns.toEqualTypeOf<Promise<{ price: number }>>();
    expectTypeOf(turn!.resume).returns.toEqualTypeOf<Promise<{ price: number }>>();
    expectTypeOf(turn!.value).toEqualTypeOf<{ price: number } | undefined>();
    expectTypeOf(await chat.turn(turn!.id)).toEqualTypeOf<Turn<{ price: number }>>();
    // @ts-expect-error: a turn's result is the function's output, not anything
    const wrong: Promise<string> = turn!.approve();
    void wrong.catch(() => undefined); // (this turn is done: nothing waits to be approved)
  });

  it("a stream's done event carries O", () => {
    const chat = echo.conversation("e", { store: memoryStore() });
    const s = chat.stream({ text: "hi" });
    expectTypeOf<Awaited<typeof s>>().toEqualTypeOf<number>();
    expectTypeOf(s[Symbol.asyncIterator]).returns.toEqualTypeOf<AsyncIterator<TurnEvent<number>>>();
    type Done = Extract<TurnEvent<number>, { type: "done" }>;
    expectTypeOf<Done["result"]>().toEqualTypeOf<number>();
    for (const e of [] as TurnEvent<number>[]) if (e.type === "done") expectTypeOf(e.result).toEqualTypeOf<number>();
    void s.then(() => undefined, () => undefined);
  });

  it("send takes a key; stream takes none (refused at run time too: a stream's turn is named before the store is read)", () => {
    const chat = echo.conversation("k", { store: memoryStore() });
    expectTypeOf(chat.send).parameter(1).toEqualTypeOf<SendOptions | undefined>();
    expectTypeOf<SendOptions["key"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<"key" extends keyof NonNullable<Parameters<typeof chat.stream>[1]> ? true : false>().toEqualTypeOf<false>();
    // @ts-expect-error: a stream takes no key
    expect(() => chat.stream({ text: "hi" }, { key: "k1" })).toThrow(expect.objectContaining({ code: "input-invalid" }));
  });

  it("the public Turn shows only what users call", () => {
    type Shown = keyof Turn<number>;
    expectTypeOf<"record" extends Shown ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<"continueSession" extends Shown ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<"streamOn" extends Shown ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<Waiting["turn"]>().toEqualTypeOf<Turn<unknown>>();
  });
});
