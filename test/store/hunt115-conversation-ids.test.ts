/**
 * Hunt 115: conversation ids, as DESIGN.md ("Stores") gives them: "1–200 of
 * ASCII letters, digits, `.`, `_`, `-`, starting with a letter or digit".
 * The stores also refused an id holding "..", which the DESIGN allows (it
 * starts with a letter or digit and holds no "/" or "\\", so it is never a
 * path), and the refusal's message listed rules the id met. Decided: the
 * DESIGN's rule, as written. Every store takes such an id in the contract
 * suite (test/store/contract.ts).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore } from "../../src/index.js";
import { checkConversationId } from "../../src/store/checks.js";
import { isConversationId } from "../../src/store/types.js";
import { scripted } from "../../src/testing/index.js";

describe("hunt 115: a conversation id the DESIGN allows", () => {
  it('"a..b" is a conversation id (letters and dots, starting with a letter)', () => {
    expect(isConversationId("a..b")).toBe(true);
    expect(() => checkConversationId("a..b")).not.toThrow();
  });

  it("a conversation opened under such an id sends and reads back", async () => {
    const store = memoryStore();
    const echo = ai("echo", { description: "Echo.", input: { text: z.string() } });
    const chat = echo.conversation("v1..2", { store, lm: scripted(["hello"]) });
    expect(await chat.send({ text: "hi" })).toBe("hello");
    expect(await store.list?.()).toEqual(["v1..2"]);
  });

  it("a path is still refused", () => {
    for (const id of ["..", "../a", "a/../b", "..a"]) expect(isConversationId(id), id).toBe(false);
  });
});
