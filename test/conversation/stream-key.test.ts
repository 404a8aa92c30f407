/**
 * `stream` takes no key: a stream's turn (`s.turn`, its actor, its events)
 * is named the moment `stream` returns, before the store is read, so it
 * cannot turn out to be another turn that a key already names. A key given
 * anyway (a JavaScript caller, a cast) is refused before anything is
 * written or paid, never ignored: ignored, a retry with the same key would
 * start a second turn and pay the model again.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function desk() {
  const fn = ai("desk", { description: "Answer.", input: { ask: z.string() } });
  const store = memoryStore();
  const lm = scripted(["one", "two"]);
  return { chat: fn.conversation("c", { store, lm }), store, lm };
}

describe("stream with a key", () => {
  it("is refused (input-invalid, pointing to send), nothing written or paid", async () => {
    const { chat, store, lm } = desk();
    expect(await chat.send("where is A-1", { key: "k1" })).toBe("one");
    const length = (await store.read("c")).length;
    const keyed = { key: "k1" } as unknown as Parameters<typeof chat.stream>[1];
    let thrown: unknown;
    try {
      void chat.stream("where is A-1", keyed);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ code: "input-invalid", message: expect.stringContaining("send(input, { key })") });
    // a new key too: not a turn without its key
    expect(() => chat.stream("refund B-2", { key: "k2" } as unknown as Parameters<typeof chat.stream>[1])).toThrow(
      expect.objectContaining({ code: "input-invalid" }),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(await store.read("c")).toHaveLength(length);
    expect(lm.requests).toHaveLength(1);
  });

  it("a key left undefined is no key: the stream goes on", async () => {
    const { chat } = desk();
    expect(await chat.stream("hi", { key: undefined } as unknown as Parameters<typeof chat.stream>[1])).toBe("one");
  });
});
