/**
 * A conversation opened with a `clock` that is not one is refused when it
 * is opened (`settings-invalid`, naming the option), as a bad id or store
 * is, never a TypeError from deep inside its first send.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore } from "../../src/index.js";
import { fakeClock, scripted } from "../../src/testing/index.js";

const desk = ai("desk", { description: "Answer.", input: { ask: z.string() } });

describe("conversation(id, { clock })", () => {
  it.each([
    ["an object without now", { after: () => ({ cancel() {} }), every: () => ({ cancel() {} }) }],
    ["Date", Date],
  ])("clock: %s is refused when opened (settings-invalid)", (_, clock) => {
    expect(() => desk.conversation("c", { store: memoryStore(), clock: clock as never, lm: scripted(["a"]) })).toThrow(expect.objectContaining({ code: "settings-invalid", message: expect.stringMatching(/clock/) }));
  });

  it("a Store and a Clock are taken", async () => {
    const chat = desk.conversation("c", { store: memoryStore(), clock: fakeClock(), lm: scripted(["a"]) });
    expect(await chat.send("hi")).toBe("a");
  });
});
