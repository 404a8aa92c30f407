/**
 * A send's key names one request: a second send with the key and the same
 * inputs answers as the first turn did, paying nothing; a second send with
 * the key and other inputs is another request under a reused key, refused
 * (`input-invalid`) rather than answered with the first question's answer.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function desk() {
  const fn = ai("desk", { description: "Answer.", input: { ask: z.string(), lang: z.string() } });
  const store = memoryStore();
  const lm = scripted(["one", "two"]);
  return { chat: fn.conversation("c", { store, lm }), store, lm };
}

describe("send with a key the conversation holds", () => {
  it("the same inputs: the first turn's answer, nothing sent again", async () => {
    const { chat, lm } = desk();
    expect(await chat.send({ ask: "where is A-1", lang: "en" }, { key: "k1" })).toBe("one");
    expect(await chat.send({ lang: "en", ask: "where is A-1" }, { key: "k1" })).toBe("one");
    expect(lm.requests).toHaveLength(1);
  });

  it("other inputs: refused (input-invalid, naming the key), never the first question's answer; nothing written or paid", async () => {
    const { chat, store, lm } = desk();
    expect(await chat.send({ ask: "where is A-1", lang: "en" }, { key: "k1" })).toBe("one");
    const length = (await store.read("c")).length;
    await expect(chat.send({ ask: "refund B-2", lang: "en" }, { key: "k1" })).rejects.toMatchObject({
      code: "input-invalid",
      message: expect.stringContaining('"k1"'),
    });
    expect(await store.read("c")).toHaveLength(length);
    expect(lm.requests).toHaveLength(1);
    // another key is another request, as ever
    expect(await chat.send({ ask: "refund B-2", lang: "en" }, { key: "k2" })).toBe("two");
  });
});
