/**
 * `readConversation` and `ConversationReader.add` given arguments of the
 * wrong kind (from JavaScript, or a store's answer passed on unchecked):
 * refused with a FunctaiError (`input-invalid`) that says what was wrong,
 * never a bare TypeError ("records is not iterable").
 */
import { describe, expect, it } from "vitest";
import { ConversationReader, isFunctaiError, readConversation } from "../../src/index.js";
import { errorOf } from "../fixtures/refused.js";


describe("readConversation: its arguments", () => {
  it.each([["undefined", undefined], ["null", null], ["a number", 3], ["an object", { length: 1 }]])("refuses records that are %s", (_label, records) => {
    const e = errorOf(() => readConversation(records as never, { now: 0 }));
    expect(isFunctaiError(e, "input-invalid"), String(e)).toBe(true);
    const r = errorOf(() => new ConversationReader().add(records as never));
    expect(isFunctaiError(r, "input-invalid"), String(r)).toBe(true);
  });

  it.each([["left out", undefined], ["null", null], ["a number", 5]])("refuses options %s", (_label, options) => {
    const e = errorOf(() => readConversation([], options as never));
    expect(isFunctaiError(e, "input-invalid"), String(e)).toBe(true);
  });

  it("takes a list of records (the reader: any iterable)", () => {
    const turn = { functai_conversation: 1, at: "2026-09-30T10:00:00Z", seq: 1, kind: "turn", turn: "t1", parent: null, program: "v", inputs: {} };
    expect(readConversation([turn], { now: 0 }).head).toBe("t1");
    expect(new ConversationReader().add(new Set([turn])).state(0).head).toBe("t1");
  });
});
